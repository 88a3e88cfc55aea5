#!/usr/bin/env bash
# Set up (or refresh) the project's virtual environment in .venv: the package with its
# dryrun and test extras, torch pinned to the CPU build through constraints.txt.
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
        -c constraints.txt -e '.[dryrun,test]'
    echo "$wanted" > "$stamp"
fi
