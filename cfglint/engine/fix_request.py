"""What a command asks of fixes, and what a report gets back: small values the command line
holds whether or not it plans any fix (the planning itself, fix_plan.py and fixes.py, imports
libcst's callers and the project-wide placement)."""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.settings import FixPlacement
from cfglint.types import Applicability, Notice, Violation


@dataclass(frozen=True, slots=True)
class FixRequest:
    placement: FixPlacement
    unsafe: bool
    cli_target: str | None = None


def wants_fix(violation: Violation, request: FixRequest) -> bool:
    intent = violation.fix_intent
    return intent is not None and (intent.applicability is Applicability.SAFE or request.unsafe)


@dataclass(frozen=True, slots=True)
class PlannedFixes:
    violations: tuple[Violation, ...]  # each with its `fix` (None: none placed)
    # cfglint's own failures on a file (internal errors): its fixes are left out of the report.
    notices: tuple[Notice, ...] = ()
