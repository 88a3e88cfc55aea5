"""One command run's shared state: what it learnt about the file system, and its targets.

The command line opens a session for each command (`cfglint.cli.main`) and every step reaches it
through `current()`. Nothing a command read from the file system (a folder's settings, a real
path, where a package is installed) outlives it: a second command in the same process (the
in-process CLI tests, an editor integration) reads the tree afresh. Code run outside any command
(a library caller, a benchmark) shares one session until it opens its own with `command()`.

Worker processes forked by a command inherit its session as it was when they were forked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar, cast

# A command names a few thousand files and folders; a library caller running many commands
# without a session of its own must not grow without bound.
_MEMO_LIMIT = 1 << 16

_Function = TypeVar("_Function", bound=Callable[..., Any])


class Session:
    """What one command run shares between its steps."""

    def __init__(self) -> None:
        self._memos: dict[Callable[..., Any], dict[tuple[Any, ...], Any]] = {}
        # Folders whose stale temporary files of cfglint's own naming were already removed.
        self.cleaned_folders: set[Path] = set()
        # Unexpected exceptions reported (cfglint/crash_log.py), each by its file and summary
        # (met again, it is the same notice): a run that met one is not cached.
        self.internal_notices: dict[tuple[Path | None, str], Any] = {}
        # The bytes of the files read, by path (cfglint/files.py): a config is read to tell it
        # is one, for its target comment, to resolve it and for its noqa comments.
        self.files_read: dict[str, Any] = {}
        self.files_read_bytes = 0

    def memo(self, function: Callable[..., Any]) -> dict[tuple[Any, ...], Any]:
        found = self._memos.get(function)
        if found is None or len(found) > _MEMO_LIMIT:
            found = self._memos[function] = {}
        return found


_AMBIENT = Session()
_CURRENT: ContextVar[Session | None] = ContextVar("cfglint_session", default=None)


def current() -> Session:
    session = _CURRENT.get()
    return session if session is not None else _AMBIENT


@contextmanager
def command() -> Iterator[Session]:
    """A fresh session for one command, current until the block ends."""
    session = Session()
    token = _CURRENT.set(session)
    try:
        yield session
    finally:
        _CURRENT.reset(token)


def per_session(function: _Function) -> _Function:
    """Remember `function`'s answer per positional arguments for the current session: for
    questions about the file system that a command asks thousands of times."""

    @functools.wraps(function)
    def remembered(*args: Any) -> Any:
        # current() and Session.memo, inlined: this runs hundreds of thousands of times a run.
        session = _CURRENT.get() or _AMBIENT
        memo = session._memos.get(function)
        if memo is None or len(memo) > _MEMO_LIMIT:
            memo = session.memo(function)
        try:
            return memo[args]
        except KeyError:
            value = memo[args] = function(*args)
            return value

    return cast(_Function, remembered)
