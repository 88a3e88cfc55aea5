"""Place each violation's fix in concrete files, apply the fixes, repeat until stable."""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cfglint import fix as fix_engine
from cfglint.engine.placement import Placement, Placer
from cfglint.engine.run import CheckRequest, CheckResult, run_check
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.settings import FixPlacement
from cfglint.types import Applicability, Fix, KeyChange, TextEdit, Violation

MAX_ROUNDS = 5


@dataclass(frozen=True, slots=True)
class FixRequest:
    placement: FixPlacement
    unsafe: bool
    cli_target: str | None = None


@dataclass(frozen=True, slots=True)
class FixOutcome:
    final: CheckResult
    fixed_count: int
    diff: str
    problems: tuple[str, ...]


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as stream:
        return stream.read()


class _EditCache:
    """Edits per (file, changes) for one round: a file is parsed once however many
    violations place a fix in it. Files in `blocked` are never edited."""

    def __init__(self, blocked: frozenset[Path] = frozenset()) -> None:
        self._cache: dict[tuple[Path, str], tuple[TextEdit, ...] | Exception] = {}
        self.blocked = blocked

    def edits(self, path: Path, changes: Sequence[KeyChange]) -> tuple[TextEdit, ...]:
        if path in self.blocked:
            raise fix_engine.FixNotApplicable("an earlier fix here broke another config")
        key = (path, repr(changes))
        if key not in self._cache:
            try:
                self._cache[key] = fix_engine.edits_for_file(path, _read(path), changes)
            except (fix_engine.FixNotApplicable, OSError, UnicodeDecodeError) as error:
                self._cache[key] = error
        found = self._cache[key]
        if isinstance(found, Exception):
            raise found
        return found

    def placement_edits(self, placement: Placement) -> tuple[TextEdit, ...]:
        return tuple(edit for path, changes in placement for edit in self.edits(path, changes))


def _fix_for(
    violation: Violation, placer: Placer, cache: _EditCache
) -> tuple[Fix | None, Placement, str | None]:
    intent = violation.fix_intent
    if intent is None:
        return None, [], None
    reason: str | None = None
    for placement in placer.candidates(violation):
        try:
            edits = cache.placement_edits(placement)
        except (fix_engine.FixNotApplicable, OSError, UnicodeDecodeError) as error:
            reason = f"{violation.span.display()}: {violation.code}: cannot place fix: {error}"
            continue
        return Fix(intent.message, intent.applicability, edits), placement, None
    return None, [], reason


def planned_fixes(
    result: CheckResult, request: FixRequest, *, with_edits: bool = True
) -> list[Violation]:
    """The violations with their `fix` filled in, for reports.

    Without `with_edits` a fix carries its message and applicability but no edits: enough for
    the `[*]` marks and help lines of the text formats, without parsing every file with libcst.
    """
    if not with_edits:
        return [
            replace(violation, fix=Fix(intent.message, intent.applicability, ()))
            if (intent := violation.fix_intent) is not None
            else violation
            for violation in result.violations
        ]
    cache = _EditCache()
    placer = Placer(result, request.placement, request.cli_target)
    return [
        replace(violation, fix=_fix_for(violation, placer, cache)[0])
        for violation in result.violations
    ]


@dataclass(frozen=True, slots=True)
class _Round:
    contents: dict[Path, tuple[str, str]]  # path -> (old text, new text)
    fixed: int
    problems: list[str]


def _new_contents(result: CheckResult, request: FixRequest, blocked: frozenset[Path]) -> _Round:
    """Every applicable fix, grouped per file so each file gets one consistent set of edits."""
    cache = _EditCache(blocked)
    placer = Placer(result, request.placement, request.cli_target)
    changes_by_file: dict[Path, list[KeyChange]] = defaultdict(list)
    fixed = 0
    problems: list[str] = []
    for violation in result.violations:
        intent = violation.fix_intent
        if intent is None or not (intent.applicability is Applicability.SAFE or request.unsafe):
            continue
        candidates = placer.candidates(violation)
        if len(candidates) == 1:
            # No fallback to choose: the per-file pass below parses the file once for all.
            placement = candidates[0]
        else:
            fix, placement, reason = _fix_for(violation, placer, cache)
            if reason is not None:
                problems.append(reason)
            if fix is None:
                continue
        fixed += 1
        for path, changes in placement:
            changes_by_file[path].extend(changes)
    contents: dict[Path, tuple[str, str]] = {}
    for path, file_changes in changes_by_file.items():
        old = _read(path)
        try:
            new = fix_engine.apply_text_edits(old, cache.edits(path, _unique(file_changes)))
        except (fix_engine.FixNotApplicable, fix_engine.OverlappingEditsError) as error:
            problems.append(f"{path}: fixes not applied: {error}")
            continue
        invalid = fix_engine.check_still_valid(path, new)
        if invalid is not None:
            problems.append(f"{path}: fixes reverted, the result would not parse: {invalid}")
            continue
        if new != old:
            contents[path] = (old, new)
    return _Round(contents, fixed, problems)


def _unique(changes: Sequence[KeyChange]) -> list[KeyChange]:
    seen: dict[tuple[str, ...], KeyChange] = {}
    for change in changes:
        seen.setdefault(change.key, change)
    return list(seen.values())


def _diff(contents: dict[Path, tuple[str, str]]) -> str:
    chunks: list[str] = []
    for path in sorted(contents):
        old, new = contents[path]
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{display_path(path)}",
                tofile=f"b/{display_path(path)}",
            )
        )
    return "".join(chunks)


def _broken_by(before: CheckResult, after: CheckResult, written: set[Path]) -> set[Path]:
    """Written files behind configs that resolved before the round and no longer do.

    A fix can be valid Python and still break a config that inherits the file: a new
    top-level key that another base of the same config also defines is an MMEngine error.
    """
    culprits: set[Path] = set()
    for config, resolved in before.resolved.items():
        if config not in after.resolved:
            culprits.update(written.intersection(resolved.files))
    return culprits


def fix_until_stable(
    request: CheckRequest, result: CheckResult, fix_request: FixRequest, *, write: bool
) -> FixOutcome:
    if not write:
        planned = _new_contents(result, fix_request, frozenset())
        return FixOutcome(result, 0, _diff(planned.contents), tuple(planned.problems))
    fixed_total = 0
    problems: list[str] = []
    blocked: set[Path] = set()
    for _round in range(MAX_ROUNDS):
        planned = _new_contents(result, fix_request, frozenset(blocked))
        problems.extend(planned.problems)
        if not planned.contents:
            return FixOutcome(result, fixed_total, "", tuple(dict.fromkeys(problems)))
        for path, (_old, new) in planned.contents.items():
            fix_engine.write_atomic(path, new)
        after = run_check(request, Loader())
        broken = _broken_by(result, after, set(planned.contents))
        if broken:
            for path in sorted(broken):
                fix_engine.write_atomic(path, planned.contents[path][0])
                problems.append(
                    f"{path}: fix reverted: it made a config that inherits this file "
                    "fail to resolve"
                )
            blocked.update(broken)
            after = run_check(request, Loader())
        fixed_total += planned.fixed
        result = after
    problems.append(f"fixes did not converge after {MAX_ROUNDS} rounds; check the output")
    return FixOutcome(result, fixed_total, "", tuple(dict.fromkeys(problems)))
