#!/usr/bin/env bash
# Set up (or refresh) the project's virtual environment in .venv: the package with its
# dryrun, review and test extras, torch pinned to the CPU build through constraints.txt; and
# GitHub's OpenAPI description (npm's @octokit/openapi) in a cache folder outside the repository,
# which the review bot's tests validate every request and response against.
# Idempotent and quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi

stamp=.venv/.cfglint-installed
wanted=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    # PIP_CONSTRAINT also binds the isolated build environments pip creates.
    PIP_CONSTRAINT="$PWD/constraints.txt" .venv/bin/pip install --quiet --disable-pip-version-check \
        -c constraints.txt -e '.[dryrun,review,test]'
    echo "$wanted" > "$stamp"
fi

# GitHub's REST API description, pinned: tests/review reads generated/api.github.com.json.
OCTOKIT_OPENAPI_VERSION=23.0.2
octokit_dir=${CFGLINT_OCTOKIT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cfglint-octokit}
octokit_package=$octokit_dir/node_modules/@octokit/openapi/package.json
if ! grep -qs "\"version\": \"$OCTOKIT_OPENAPI_VERSION\"" "$octokit_package"; then
    if command -v npm >/dev/null; then
        mkdir -p "$octokit_dir"
        npm install --prefix "$octokit_dir" --no-audit --no-fund --silent \
            "@octokit/openapi@$OCTOKIT_OPENAPI_VERSION"
    else
        echo "bootstrap: npm not found: the review bot's tests need @octokit/openapi" >&2
    fi
fi
