"""Why a `check` or `fix` exits 2, in words for the summary (`5 configs could not be resolved`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfglint.codes import UNREADABLE_CONFIG, UNRESOLVED
from cfglint.report.common import plural
from cfglint.types import Notice, NoticeKind, Violation

_UNREADABLE = UNREADABLE_CONFIG


def exit_reasons(violations: Sequence[Violation], notices: Sequence[Notice]) -> tuple[str, ...]:
    """Each cause of exit code 2, counted; empty when the exit code is not 2. `notices`: those
    the command prints (cli/notices.py), each once."""
    unreadable: set[Path] = set()
    unresolved: set[Path] = set()
    for violation in violations:
        if violation.code in UNRESOLVED and violation.severity == "error":
            found = unreadable if violation.code == _UNREADABLE else unresolved
            # A base that does not resolve fails every config inheriting it.
            found.update(violation.configs or (violation.path,))
    errors = sum(1 for n in notices if n.kind is NoticeKind.ERROR and not n.unwritten)
    unwritten = sum(1 for n in notices if n.kind is NoticeKind.ERROR and n.unwritten)
    internal = sum(1 for n in notices if n.kind is NoticeKind.INTERNAL)
    reasons = []
    if unresolved:
        reasons.append(f"{plural(len(unresolved), 'config')} could not be resolved")
    if unreadable:
        reasons.append(f"{plural(len(unreadable), 'file')} could not be read")
    if errors:
        reasons.append(f"{plural(errors, 'error')} on stderr")
    if unwritten:
        reasons.append(f"{plural(unwritten, 'file')} could not be written")
    if internal:
        reasons.append(f"{plural(internal, 'internal error')} on stderr")
    return tuple(reasons)
