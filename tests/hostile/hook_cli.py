"""cfglint's command line with one fault injected, for what no input file can cause on demand.

    python hook_cli.py HOOK cfglint-arguments...

HOOK is one of:

- ``delete-before-write:PATH``: PATH is deleted just before cfglint writes its fixes to it, as
  a user or another tool deleting a file while `fix` runs;
- ``crash-loading:NAME``: resolving a file named NAME raises an exception cfglint does not
  expect (a bug, as an input nobody foresaw would trigger one);
- ``crash-fixing:NAME``: planning the edits of a file named NAME raises one;
- ``crash-showing:NAME``: showing a config named NAME raises one;
- ``crash-verifying:NAME``: verifying, after a round of fixes, a config named NAME raises one;
- ``raise-limits:BYTES``: cfglint reads and edits files up to BYTES (to measure what the limits
  keep out: benchmarks/bench_hostile.py --sizes).

Only the named point changes; everything else is the real cfglint, run from its entry point.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def _delete_before_write(path: str) -> None:
    import cfglint.fix

    real_write = cfglint.fix.write_atomic

    def write(target: Path, content: str) -> None:
        if Path(target).resolve() == Path(path).resolve() and os.path.exists(path):
            os.unlink(path)
        real_write(target, content)

    cfglint.fix.write_atomic = write  # type: ignore[assignment]


def _faulty(real: Any, doing: str, name: str, path_of: Any) -> Any:
    """`real`, raising an exception cfglint does not expect when its first argument is about
    a file named `name` (`path_of` finds that file's path in the argument)."""

    def faulty(first: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path_of(first)).name == name:
            raise TypeError(f"injected fault while {doing} {name}")
        return real(first, *args, **kwargs)

    return faulty


def _crash_loading(name: str) -> None:
    import cfglint.loader
    from cfglint.loader import resolve

    faulty = _faulty(resolve.resolve_file, "resolving", name, lambda path: path)
    resolve.resolve_file = faulty
    cfglint.loader.resolve_file = faulty  # type: ignore[attr-defined]


def _crash_fixing(name: str) -> None:
    from cfglint.fix import dispatch

    real = dispatch.FileEditor.edits
    dispatch.FileEditor.edits = _faulty(real, "editing", name, lambda editor: editor.path)


def _crash_showing(name: str) -> None:
    import cfglint.cli.show_cmd as show_cmd

    real = show_cmd.format_text
    show_cmd.format_text = _faulty(real, "showing", name, lambda config: config.path)


def _crash_verifying(name: str) -> None:
    from cfglint.engine import fixes

    fixes._verdict = _faulty(fixes._verdict, "verifying", name, lambda watched: watched.path)


def _raise_limits(size: str) -> None:
    import cfglint.files
    import cfglint.fix.limits

    cfglint.files.MAX_FILE_BYTES = int(size)
    cfglint.fix.limits.MAX_EDIT_BYTES = int(size)
    cfglint.fix.limits.MAX_YAML_EDIT_BYTES = int(size)


HOOKS = {
    "delete-before-write": _delete_before_write,
    "crash-loading": _crash_loading,
    "crash-fixing": _crash_fixing,
    "crash-showing": _crash_showing,
    "crash-verifying": _crash_verifying,
    "raise-limits": _raise_limits,
}


def main() -> int:
    hook, _, argument = sys.argv[1].partition(":")
    HOOKS[hook](argument)
    from cfglint.cli import main as cfglint_main

    return cfglint_main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
