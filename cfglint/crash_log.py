"""Unexpected exceptions: one line for the user, the traceback in a log file.

An exception cfglint did not expect while it handles one config (a bug, or input nobody
foresaw) must not cost the user the other files' results: the caller reports it for that file
with ``internal_error`` (a `Notice` of kind internal error) and goes on. It is never a lint
finding (no ``--ignore`` can hide a bug), and it makes the run exit 2. The traceback goes to a
log file in the system's temporary folder (never into the project: cfglint runs on untrusted
trees), created on the first error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from cfglint import session
from cfglint.paths import display_path

if TYPE_CHECKING:
    from cfglint.notice import Notice

ISSUES_URL = "https://github.com/cfglint/cfglint/issues"
_MAX_MESSAGE = 200
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _Log:
    """The run's log file, opened on the first error (most runs never create one)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.failed: str | None = None

    def write(self, text: str) -> Path | None:
        for _attempt in range(2):  # a log removed meanwhile (a temp cleaner) is made anew
            if self.path is None:
                try:
                    import tempfile  # only a run that meets an internal error writes a log

                    handle, name = tempfile.mkstemp(prefix="cfglint-internal-error-", suffix=".log")
                    os.close(handle)
                except OSError as error:
                    self.failed = error.strerror or str(error)
                    return None
                self.path = Path(name)
            try:
                # Never through a symlink put in its place: append to the file made above.
                descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | _NOFOLLOW)
                with os.fdopen(descriptor, "a", encoding="utf-8", errors="backslashreplace") as log:
                    log.write(text)
                return self.path
            except OSError as error:
                self.failed = error.strerror or str(error)
                self.path = None
        return None


_LOG = _Log()


class Caught(NamedTuple):
    """An unexpected exception while handling ``path`` (None: not about one file), not yet
    reported. Steps hand it on as a value, from a worker process too; `report` turns it into an
    internal error's `Notice` where the command runs: one log file per command, and one line
    for one failure however many configs or processes met it."""

    path: Path | None
    summary: str  # `TypeError: its message's first line`
    traceback: str


def caught(error: BaseException, path: Path | None = None) -> Caught:
    import traceback  # as tempfile: only for an internal error

    lines = traceback.format_exception(type(error), error, error.__traceback__)
    return Caught(path, f"{type(error).__name__}: {_first_line(error)}", "".join(lines))


def internal_error(error: BaseException, path: Path | None = None) -> Notice:
    """The internal error to report for an unexpected exception while handling ``path`` (None:
    not about one file), after logging its traceback. Its message is the line printed after
    ``cfglint: ``."""
    return report(caught(error, path))


def report(found: Caught) -> Notice:
    """`internal_error` for an exception caught, here or in a worker process. The same failure
    (its file and summary) met again, by another config inheriting the file or in another
    worker, is the same notice: logged and counted once per command."""
    # Imported here: the command line imports this module at start-up, and `--version` has no
    # use for dataclasses.
    from cfglint.notice import Notice, NoticeKind

    current = session.current()
    key = (found.path, found.summary)
    known: Notice | None = current.internal_notices.get(key)
    if known is not None:
        return known
    path, summary = found.path, found.summary
    where = f" in {display_path(path)}" if path is not None else ""
    logged = _LOG.write(f"internal error{where}\n{found.traceback}\n")
    if logged is not None:
        note = f"traceback written to {logged}"
    else:
        note = f"traceback not written: {_LOG.failed}"
    line = f"internal error{where}: {summary} ({note}; please report it at {ISSUES_URL})"
    notice = current.internal_notices[key] = Notice(NoticeKind.INTERNAL, line, path)
    return notice


def reported() -> int:
    """How many internal errors this command reported: a run that met one is not cached (the
    bug may not happen again; its output must not outlive it)."""
    return len(session.current().internal_notices)


def _first_line(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:  # an exception whose message cannot be built still gets reported
        return "(no message)"
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 3] + "..."
