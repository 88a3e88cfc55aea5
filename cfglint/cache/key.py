"""A run's key: everything besides the files it reads that can change what it prints."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence

from cfglint import __version__
from cfglint.cache.entry import FORMAT
from cfglint.session import per_session

# cfglint's own code: a checkout or a reinstall of the same version with other code must not
# replay what the old code printed.
CODE_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CODE_SUFFIXES = (".py", ".yaml")

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


def interpreter_parts() -> dict[str, object]:
    """What every cached result depends on in this interpreter: cfglint's version and code,
    Python, the folder it runs in (paths are printed relative to it) and the import path
    (where `pkg::` bases are found)."""
    return {
        "version": __version__,
        "code": code_stamp(CODE_PACKAGE),
        "python": sys.version,
        "cwd": os.getcwd(),
        "path": sys.path,
    }


def run_key(command: str, options: Sequence[object]) -> str:
    """`options`: the command's parsed arguments as JSON values, cache options left out."""
    on_terminal = sys.stdout.isatty() or sys.stderr.isatty()
    parts = {
        **interpreter_parts(),
        "format": FORMAT,
        "command": command,
        "options": list(options),
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


@per_session
def code_stamp(package: str) -> str:
    """The name, size and modification time of every module (and shipped target file) under
    `package`, hashed: about 250 stats, a millisecond or two. Byte code is left out."""
    stamps: list[tuple[str, int, int]] = []
    start = len(package) + 1  # the paths the walk gives, relative to the package
    folders = [package]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    folders.append(entry.path)
            elif entry.name.endswith(_CODE_SUFFIXES):
                try:
                    status = entry.stat()
                except OSError:
                    continue
                stamps.append((entry.path[start:], status.st_size, status.st_mtime_ns))
    return hashlib.sha256(json.dumps(sorted(stamps)).encode()).hexdigest()
