#!/usr/bin/env bash
# The full test run: set-up, the fast suite, then the slow tests over the real
# OpenMMLab corpus (downloaded once into ~/.cache/cfglint-corpus, never committed).
# Extra arguments go to both pytest runs.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh || exit 1

.venv/bin/python -m pytest "$@"
fast=$?
[ "$fast" -ne 0 ] && exit "$fast"
.venv/bin/python -m pytest -m corpus "$@"
