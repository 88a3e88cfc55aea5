"""Why a `check` or `fix` exits 2, in words for the summary (`5 configs could not be resolved`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfglint.codes import UNREADABLE_CONFIG, UNRESOLVED
from cfglint.engine.run import CheckResult
from cfglint.report.common import plural

_UNREADABLE = UNREADABLE_CONFIG


def exit_reasons(
    result: CheckResult, write_errors: Sequence[str], internal_errors: Sequence[str]
) -> tuple[str, ...]:
    """Each cause of exit code 2, counted; empty when the exit code is not 2."""
    unreadable: set[Path] = set()
    unresolved: set[Path] = set()
    for violation in result.violations:
        if violation.code in UNRESOLVED and violation.severity == "error":
            found = unreadable if violation.code == _UNREADABLE else unresolved
            # A base that does not resolve fails every config inheriting it.
            found.update(violation.configs or (violation.path,))
    reasons = []
    if unresolved:
        reasons.append(f"{plural(len(unresolved), 'config')} could not be resolved")
    if unreadable:
        reasons.append(f"{plural(len(unreadable), 'file')} could not be read")
    if result.errors:
        reasons.append(f"{plural(len(result.errors), 'error')} on stderr")
    if write_errors:
        reasons.append(f"{plural(len(write_errors), 'file')} could not be written")
    if internal_errors:
        reasons.append(f"{plural(len(internal_errors), 'internal error')} on stderr")
    return tuple(reasons)
