"""A run's key: everything besides the files it reads that can change what it prints."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence

from cfglint import __version__
from cfglint.cache.entry import FORMAT

# Read by the report (colour, annotation paths, terminal width) or by rich, which draws it.
_ENVIRONMENT = (
    "CI",
    "COLUMNS",
    "FORCE_COLOR",
    "GITHUB_ACTIONS",
    "GITHUB_WORKSPACE",
    "LINES",
    "NO_COLOR",
    "TERM",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
)


def run_key(command: str, options: Sequence[object]) -> str:
    """`options`: the command's parsed arguments as JSON values, cache options left out. The
    import path decides where `pkg::` bases are found; the folder, how paths are printed."""
    on_terminal = sys.stdout.isatty() or sys.stderr.isatty()
    parts = {
        "format": FORMAT,
        "version": __version__,
        "python": sys.version,
        "command": command,
        "options": list(options),
        "cwd": os.getcwd(),
        "path": sys.path,
        "environment": {name: os.environ.get(name) for name in _ENVIRONMENT},
        "stdout_tty": sys.stdout.isatty(),
        "stderr_tty": sys.stderr.isatty(),
        "size": _terminal_size() if on_terminal else None,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _terminal_size() -> list[int] | None:
    """What rich lays the report out in (os's, not shutil's: importing shutil costs more)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            size = os.get_terminal_size(stream.fileno())
        except (OSError, ValueError, AttributeError):
            continue
        return [size.columns, size.lines]
    return None
