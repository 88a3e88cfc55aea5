"""One rank of an entry-script dry run: `python -m cfglint.dryrun.probe REQUEST_JSON`.

Sets up what `python SCRIPT ARGS...` would have (sys.argv, sys.path[0]), installs the import
hooks, runs the script as `__main__`, and ends the rank where training would start, or when the
script ends by itself. Only the standard library and cfglint's own stdlib-only modules are
loaded before the script.
"""

from __future__ import annotations

import json
import os
import runpy
import sys

from cfglint.dryrun.lifeline import die_with_parent
from cfglint.dryrun.probe.frames import Script
from cfglint.dryrun.probe.hooks import Hooks
from cfglint.dryrun.probe.post_import import install
from cfglint.dryrun.probe.rank_log import RankLog
from cfglint.dryrun.result import EntryRequest


def _as_python_would_run(script: str, args: tuple[str, ...]) -> list[str]:
    """sys.argv and sys.path[0] as `python SCRIPT ARGS...` sets them; the first sys.path
    entries, for the report."""
    sys.argv = [script, *args]
    folder = os.path.dirname(os.path.realpath(script))
    # `python -m` put the current folder first; `python SCRIPT` puts the script's folder there
    # (neither, with PYTHONSAFEPATH, Python 3.11+).
    safe_path = bool(getattr(sys.flags, "safe_path", False))
    if not safe_path and sys.path:
        sys.path[0] = folder
    python_path = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    return ([] if safe_path else [folder]) + python_path


def main(argv: list[str]) -> None:
    request = EntryRequest.from_json(json.loads(argv[1]))
    die_with_parent(request.parent_pid)
    log = RankLog(request, Script(request.script))
    log.begin()
    log.import_paths = _as_python_would_run(request.script, request.args)
    install(Hooks(log).watched())
    try:
        runpy.run_path(request.script, run_name="__main__")
    except SystemExit as leaving:
        log.script_exited(leaving)
    except BaseException as error:  # whatever the script raised ends the rank, recorded
        log.script_raised(error)
    log.script_returned()


if __name__ == "__main__":
    main(sys.argv)
