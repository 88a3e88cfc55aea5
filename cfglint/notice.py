"""A warning or an error that is no finding: a noqa comment not understood, a config without a
target, a file `fix` could not write, cfglint's own failure on a file.

The steps build a `Notice` where they meet the problem, with the file (and line) it is about
when there is one, and hand it on as a value; the command line prints it (cli/notices.py),
counts it in the exit reasons (cli/exit_reasons.py) and the SARIF report lists it
(report/sarif.py), without reading anything back out of the text. `cfglint/types.py` names
these types; they live in this leaf module so that `crash_log.py`, which the command line
imports at start-up, can build one without importing the pipeline's types.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path


class NoticeKind(enum.StrEnum):
    ERROR = "error"  # the run exits 2
    WARNING = "warning"
    INTERNAL = "internal error"  # cfglint's own failure (crash_log.py): the run exits 2


@dataclass(frozen=True, slots=True)
class Notice:
    kind: NoticeKind
    # One line, as printed after `cfglint: error: ` or `cfglint: warning: `; an internal
    # error's is crash_log's whole line (`internal error in PATH: ...`).
    message: str
    # What it is about, when it is about one file (and one line of it).
    path: Path | None = None
    line: int | None = None
    # An error that is a file `fix` or `--add-noqa` could not write (or put back): counted as
    # such in the exit reasons.
    unwritten: bool = False

    @classmethod
    def error(cls, message: str, path: Path | None = None, line: int | None = None) -> Notice:
        return cls(NoticeKind.ERROR, message, path, line)

    @classmethod
    def warning(cls, message: str, path: Path | None = None, line: int | None = None) -> Notice:
        return cls(NoticeKind.WARNING, message, path, line)

    @classmethod
    def write_error(cls, message: str, path: Path) -> Notice:
        return cls(NoticeKind.ERROR, message, path, unwritten=True)

    @property
    def fails(self) -> bool:
        """An error or an internal error: the run exits 2."""
        return self.kind is not NoticeKind.WARNING


def once(notices: Iterable[Notice]) -> tuple[Notice, ...]:
    """Each line once, where it first came. A line said about several places (the same settings
    error for every config reading them) is about none of them in particular."""
    first: dict[tuple[NoticeKind, str], Notice] = {}
    for notice in notices:
        key = (notice.kind, notice.message)
        seen = first.get(key)
        if seen is None:
            first[key] = notice
        elif (seen.path, seen.line) != (notice.path, notice.line):
            first[key] = replace(seen, path=None, line=None)
    return tuple(first.values())
