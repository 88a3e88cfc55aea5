"""The one place notices (cfglint/notice.py) are printed: on standard error, one line each,
`cfglint: error: ...`, `cfglint: warning: ...`, or crash_log's `cfglint: internal error in
PATH: ...`."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from cfglint.notice import Notice, NoticeKind, once

# The check's notices print grouped: what failed it first, what it merely tells last.
_CHECK_ORDER = {NoticeKind.ERROR: 0, NoticeKind.INTERNAL: 1, NoticeKind.WARNING: 2}


def line_of(notice: Notice) -> str:
    if notice.kind is NoticeKind.INTERNAL:
        return f"cfglint: {notice.message}"  # the message says `internal error in PATH`
    return f"cfglint: {notice.kind}: {notice.message}"


def print_notices(notices: Iterable[Notice]) -> None:
    for notice in notices:
        print(line_of(notice), file=sys.stderr)


def in_print_order(check: Iterable[Notice], fix: Iterable[Notice] = ()) -> tuple[Notice, ...]:
    """A `check` or `fix` command's notices as it prints them, each line once: the fix loop's
    warnings and the files it could not write first (it ran first), then the check's errors,
    internal errors (the fix loop's with them) and warnings."""
    fixing = tuple(fix)
    first = [notice for notice in fixing if notice.kind is not NoticeKind.INTERNAL]
    rest = [*check, *(notice for notice in fixing if notice.kind is NoticeKind.INTERNAL)]
    return once([*first, *sorted(rest, key=lambda notice: _CHECK_ORDER[notice.kind])])
