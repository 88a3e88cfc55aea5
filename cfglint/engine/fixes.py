"""Place each violation's fix in concrete files, apply the fixes, repeat until stable."""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cfglint import fix as fix_engine
from cfglint.engine.run import CheckRequest, CheckResult, run_check
from cfglint.loader import Loader
from cfglint.settings import FixPlacement
from cfglint.types import Applicability, Fix, KeyChange, TextEdit, Violation

MAX_ROUNDS = 5


@dataclass(frozen=True, slots=True)
class FixRequest:
    placement: FixPlacement
    unsafe: bool


@dataclass(frozen=True, slots=True)
class FixOutcome:
    final: CheckResult
    fixed_count: int
    diff: str
    problems: tuple[str, ...]


Placement = list[tuple[Path, tuple[KeyChange, ...]]]


def _place(violation: Violation, result: CheckResult, placement: FixPlacement) -> list[Placement]:
    """Candidate placements, best first: the file that sets the value, or each leaf."""
    intent = violation.fix_intent
    assert intent is not None
    origin = violation.path
    at_origin: Placement = [(origin, intent.changes)]
    in_leaves: Placement = [(leaf, intent.changes) for leaf in violation.configs]
    if origin in violation.configs:
        return [at_origin]
    if placement == "leaf":
        return [in_leaves]
    if placement == "origin":
        return [at_origin]
    inheritors = [leaf for leaf, config in result.resolved.items() if origin in config.files]
    # A shared base is only edited when every config using it is checked for this target:
    # a CUDA config inheriting the same base must never change.
    if all(result.targets.get(leaf) == violation.target for leaf in inheritors):
        return [at_origin, in_leaves]
    return [in_leaves]


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as stream:
        return stream.read()


def _edits(placement: Placement) -> tuple[TextEdit, ...]:
    edits: list[TextEdit] = []
    for path, changes in placement:
        edits.extend(fix_engine.edits_for_file(path, _read(path), changes))
    return tuple(edits)


def _fix_for(
    violation: Violation, result: CheckResult, request: FixRequest
) -> tuple[Fix | None, Placement, str | None]:
    intent = violation.fix_intent
    if intent is None:
        return None, [], None
    reason: str | None = None
    for placement in _place(violation, result, request.placement):
        try:
            edits = _edits(placement)
        except (fix_engine.FixNotApplicable, OSError, UnicodeDecodeError) as error:
            reason = f"{violation.span.display()}: {violation.code}: cannot place fix: {error}"
            continue
        return Fix(intent.message, intent.applicability, edits), placement, None
    return None, [], reason


def planned_fixes(result: CheckResult, request: FixRequest) -> list[Violation]:
    """The violations with their `fix` filled in (for reports: JSON edits, fix hints)."""
    return [
        replace(violation, fix=_fix_for(violation, result, request)[0])
        for violation in result.violations
    ]


def _applicable(fix: Fix | None, request: FixRequest) -> bool:
    return fix is not None and (fix.applicability is Applicability.SAFE or request.unsafe)


def _new_contents(
    result: CheckResult, request: FixRequest
) -> tuple[dict[Path, tuple[str, str]], int, list[str]]:
    """path -> (old text, new text) for every applicable fix, grouped per file."""
    changes_by_file: dict[Path, list[KeyChange]] = defaultdict(list)
    fixed = 0
    problems: list[str] = []
    for violation in result.violations:
        fix, placement, reason = _fix_for(violation, result, request)
        if reason is not None:
            problems.append(reason)
        if not _applicable(fix, request):
            continue
        fixed += 1
        for path, changes in placement:
            changes_by_file[path].extend(changes)
    contents: dict[Path, tuple[str, str]] = {}
    for path, changes in changes_by_file.items():
        old = _read(path)
        try:
            edits = fix_engine.edits_for_file(path, old, _unique(changes))
            new = fix_engine.apply_text_edits(old, edits)
        except (fix_engine.FixNotApplicable, fix_engine.OverlappingEditsError) as error:
            problems.append(f"{path}: fixes not applied: {error}")
            continue
        invalid = fix_engine.check_still_valid(path, new)
        if invalid is not None:
            problems.append(f"{path}: fixes reverted, the result would not parse: {invalid}")
            continue
        if new != old:
            contents[path] = (old, new)
    return contents, fixed, problems


def _unique(changes: Sequence[KeyChange]) -> list[KeyChange]:
    seen: dict[tuple[str, ...], KeyChange] = {}
    for change in changes:
        seen.setdefault(change.key, change)
    return list(seen.values())


def _diff(contents: dict[Path, tuple[str, str]]) -> str:
    chunks = []
    for path in sorted(contents):
        old, new = contents[path]
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"{path}",
                tofile=f"{path}",
            )
        )
    return "".join(chunks)


def fix_until_stable(
    request: CheckRequest, result: CheckResult, fix_request: FixRequest, *, write: bool
) -> FixOutcome:
    if not write:
        contents, _, problems = _new_contents(result, fix_request)
        return FixOutcome(result, 0, _diff(contents), tuple(problems))
    fixed_total = 0
    all_problems: list[str] = []
    for _round in range(MAX_ROUNDS):
        contents, fixed, problems = _new_contents(result, fix_request)
        all_problems.extend(problems)
        if not contents:
            return FixOutcome(result, fixed_total, "", tuple(dict.fromkeys(all_problems)))
        for path, (_old, new) in contents.items():
            fix_engine.write_atomic(path, new)
        fixed_total += fixed
        result = run_check(request, Loader())
    all_problems.append(f"fixes did not converge after {MAX_ROUNDS} rounds; check the output")
    return FixOutcome(result, fixed_total, "", tuple(dict.fromkeys(all_problems)))
