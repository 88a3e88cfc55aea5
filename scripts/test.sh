#!/usr/bin/env bash
# The full test run: set-up, the fast suite, then the slow tests over the real
# OpenMMLab corpus (downloaded once into ~/.cache/cfglint-corpus, never committed).
# Extra arguments go to both pytest runs.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh || exit 1

# The fast suite on every core (at most 4 workers: each dry-run test starts ranks importing
# torch); the corpus tests one at a time (they share the corpus download and its caches).
.venv/bin/python -m pytest -n auto --maxprocesses=4 "$@"
fast=$?
[ "$fast" -ne 0 ] && exit "$fast"
.venv/bin/python -m pytest -m corpus "$@"
