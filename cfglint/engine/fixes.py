"""Apply the fixes round by round, verify each round, repeat until nothing changes.

Each round is planned (fix_plan.py), written, and every config reading an edited file is
resolved again. A file whose edits did not give their configs the intended values, or changed
any other key of any config reading it (a CUDA config sharing a base, say), is put back, and
the fixes that used it take their next placement in the next round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cfglint import crash_log
from cfglint import fix as fix_engine
from cfglint.engine.fix_plan import (
    Blocked,
    FileEdit,
    Plan,
    ViolationId,
    identity,
    plan_round,
)
from cfglint.engine.fix_request import FixRequest, PlannedFixes, wants_fix
from cfglint.engine.inheritors import InheritanceIndexes
from cfglint.engine.outcome import OutcomeCache
from cfglint.engine.placement import Placement
from cfglint.engine.pool import map_in_workers, worker_count
from cfglint.engine.project_index import ProjectIndex, real
from cfglint.engine.run import CheckRequest, CheckResult, Progress, run_check
from cfglint.engine.verify import Baseline, Expectation
from cfglint.loader import Loader
from cfglint.notice import once
from cfglint.paths import display_path
from cfglint.types import (
    REMOVE,
    Fix,
    KeyChange,
    Notice,
    NoticeKind,
    ResolvedConfig,
    Span,
    TextEdit,
    Violation,
)

__all__ = ["FixOutcome", "fix_until_stable", "planned_fixes"]

MAX_ROUNDS = 5

# Given a round's number (from 1), what to tell of the configs its check loads (None: nothing).
RoundProgress = Callable[[int], Progress | None]


@dataclass(frozen=True, slots=True)
class FixOutcome:
    final: CheckResult
    # Violations of the first check that are gone after the fixes.
    fixed_count: int
    diff: str
    # Each once, in this order: warnings (a fix not applied, reverted, or placed with a
    # caveat); files that could not be written (errors: exit code 2); cfglint's own failures
    # on a file while planning or verifying (internal errors: exit code 2).
    notices: tuple[Notice, ...]
    # Without writing (`--diff`): how many violations the diff fixes.
    would_fix: int = 0


def fix_until_stable(
    request: CheckRequest,
    result: CheckResult,
    fix_request: FixRequest,
    *,
    write: bool,
    indexes: InheritanceIndexes | None = None,
    round_progress: RoundProgress | None = None,
    cache: OutcomeCache | None = None,
) -> FixOutcome:
    """`indexes`: those of the first check (who inherits what), reused by every later one;
    `round_progress`: told of the configs each round's check loads; `cache`: each config's
    outcome, taken from there and stored there by every check."""
    index = ProjectIndex(result, request.paths, indexes)
    blocked: Blocked = set()
    if not write:
        plan = plan_round(result, index, fix_request, blocked, writing=False)
        return FixOutcome(
            result,
            0,
            plan.diff(),
            _in_order(plan.notices),
            would_fix=len({id(v) for edit in plan.files.values() for v, _changes in edit.accepted}),
        )
    fixable = _fixable(result, fix_request)
    notes = _Notes()
    for round_number in range(MAX_ROUNDS + 1):
        plan = plan_round(result, index, fix_request, blocked, writing=True)
        notes.extend(plan.notices)
        if not plan.files:
            break
        if round_number == MAX_ROUNDS:
            unstable = f"fixes did not converge after {MAX_ROUNDS} rounds; check the output"
            notes.add(Notice.warning(unstable))
            break
        baselines = _baselines(result, index, plan, fix_request, blocked, notes)
        # The resolved trees of this round may go: only the baselines are compared.
        del result
        written = _write(plan, notes, blocked)
        checking = round_progress(round_number + 1) if round_progress is not None else None
        result = _verified_round(
            request, index, plan, written, baselines, blocked, notes, checking, cache
        )
    return FixOutcome(result, _fixed_count(fixable, result), "", notes.remaining(result))


# What the fix loop tells, grouped: what it did not do, what it could not write, its failures.
_FIX_ORDER = {NoticeKind.WARNING: 0, NoticeKind.ERROR: 1, NoticeKind.INTERNAL: 2}


def _in_order(notices: Sequence[Notice]) -> tuple[Notice, ...]:
    return once(sorted(notices, key=lambda notice: _FIX_ORDER[notice.kind]))


class _Notes:
    """What the fix loop tells the user, round after round. A note about a fix that was
    reverted is dropped when a later round fixed the violation some other way."""

    def __init__(self) -> None:
        self._notes: dict[Notice, set[ViolationId] | None] = {}

    def add(self, notice: Notice, about: set[ViolationId] | None = None) -> None:
        self._notes.setdefault(notice, about)

    def extend(self, notices: Sequence[Notice]) -> None:
        for notice in notices:
            self.add(notice)

    def remaining(self, final: CheckResult) -> tuple[Notice, ...]:
        left = {identity(violation) for violation in final.violations}
        return _in_order(
            [notice for notice, about in self._notes.items() if about is None or about & left]
        )


@dataclass(frozen=True, slots=True)
class _Watched:
    """A config that reads a file the round edits, as it resolved before the round."""

    path: Path
    files: frozenset[Path]  # real paths
    baseline: Baseline
    checked: bool


@dataclass
class _Expectations:
    """What the round may change, per config (real path), in every config reading a file
    that `--fix-placement origin` edits, and in every config of a fix's target reading a file
    the fix edits."""

    per_config: dict[Path, Expectation]
    origin_files: set[Path]
    origin_keys: tuple[tuple[str, ...], ...]
    # (edited file, target) -> the keys fixes for that target change by editing the file: a
    # config of the same target that inherits the file (a FlexibleRunner config built on a
    # fixed leaf, which CL201 does not check) gets the target's values too, as it should.
    by_file_and_target: dict[tuple[Path, str], list[tuple[str, ...]]]

    def of(self, config: Path, files: frozenset[Path], target: str | None) -> Expectation:
        expectation = self.per_config.get(config, Expectation())
        allowed = list(expectation.allowed)
        if files & self.origin_files:
            allowed.extend(self.origin_keys)
        if target is not None:
            for file in files:
                allowed.extend(self.by_file_and_target.get((file, target), ()))
        if len(allowed) == len(expectation.allowed):
            return expectation
        return replace(expectation, allowed=tuple(dict.fromkeys(allowed)))


def _expectations(plan: Plan, request: FixRequest) -> _Expectations:
    allowed: dict[Path, list[tuple[str, ...]]] = {}
    intended: dict[Path, list[KeyChange]] = {}
    replaced: dict[Path, set[Span]] = {}
    origin_files: set[Path] = set()
    origin_keys: list[tuple[str, ...]] = []
    by_file_and_target: dict[tuple[Path, str], list[tuple[str, ...]]] = {}
    for violation, placement in plan.chosen:
        intent = violation.fix_intent
        assert intent is not None
        edited = [entry for entry in placement.files if _carried(plan, violation, entry.path)]
        if not edited:
            continue
        keys = [change.key for change in intent.changes]
        if violation.target is not None:
            for entry in edited:
                by_file_and_target.setdefault((real(entry.path), violation.target), []).extend(keys)
        spans = {
            change.span
            for entry in edited
            for change in entry.anchored
            if not change.key and change.value is not REMOVE
        }
        for config in violation.configs:
            key = real(config)
            allowed.setdefault(key, []).extend(keys)
            replaced.setdefault(key, set()).update(spans)
            if len(edited) == len(placement.files) and placement.primary:
                intended.setdefault(key, []).extend(intent.changes)
        if request.placement == "origin" and placement.kind == "origin":
            # Asked for: the value changes for every config reading the file.
            origin_files.update(real(entry.path) for entry in edited)
            origin_keys.extend(keys)
    per_config = {
        config: Expectation(
            tuple(keys), tuple(intended.get(config, ())), frozenset(replaced[config])
        )
        for config, keys in allowed.items()
    }
    return _Expectations(per_config, origin_files, tuple(origin_keys), by_file_and_target)


def _carried(plan: Plan, violation: Violation, path: Path) -> bool:
    file_edit = plan.files.get(real(path))
    return file_edit is not None and file_edit.carries(violation)


def _baselines(
    result: CheckResult,
    index: ProjectIndex,
    plan: Plan,
    request: FixRequest,
    blocked: Blocked,
    notes: _Notes,
) -> dict[Path, _Watched]:
    """Every launched config that reads a file of the plan, reduced to what must not change:
    the checked ones as the check resolved them, the others resolved now. A file read by a
    config whose baseline cannot be taken leaves the plan (and its fixes are blocked)."""
    edited = set(plan.files)
    expectations = _expectations(plan, request)
    touched = frozenset(
        change.key[0]
        for violation, _placement in plan.chosen
        if violation.fix_intent is not None
        for change in violation.fix_intent.changes
    )
    # (path, checked, target): only the configs reading an edited file need their trees,
    # resolved again, on every core (engine/pool.py), each reduced to its baseline there.
    configs = [
        (path, True, result.targets.get(path))
        for path, facts in result.configs.items()
        if not facts.fragment and edited.intersection(real(file) for file in facts.files)
    ]
    configs.extend(
        (unchecked.path, False, unchecked.target)
        for unchecked in index.unchecked_reading(edited)
    )

    def taken(item: int) -> _Taken | None:
        path, checked, target = configs[item]
        config = result.resolved.get(path) if checked else index.load(path)
        if not isinstance(config, ResolvedConfig):
            return None  # it no longer resolves: the check after the round says so
        files = frozenset(real(file) for file in config.files)
        if not files & edited:
            return None  # it reads no edited file after all: nothing to verify
        expectation = expectations.of(real(path), files, target)
        try:
            return _Taken(files, Baseline(config.root, expectation, touched))
        except Exception as error:  # nothing to verify against: its files are not edited
            return _Taken(files, None, crash_log.caught(error, path))

    watched: dict[Path, _Watched] = {}
    computed = map_in_workers(len(configs), taken, worker_count(len(configs)))
    for (path, checked, _target), found in zip(configs, computed, strict=True):
        if found is None or not found.files & edited:
            continue
        if found.baseline is None:  # cfglint's own failure to reduce it
            if found.failure is not None:
                notes.add(crash_log.report(found.failure))
            for file in found.files & edited:
                _block(plan, plan.files.pop(file), blocked)
            edited.difference_update(found.files)
            continue
        watched[real(path)] = _Watched(path, found.files, found.baseline, checked)
    return watched


@dataclass(frozen=True, slots=True)
class _Taken:
    """A config's baseline, as a worker sends it back: the files it reads (real paths), and
    what it resolved to, or cfglint's own failure to reduce it (then its files are not
    edited)."""

    files: frozenset[Path]
    baseline: Baseline | None  # None: `failure` says why
    failure: crash_log.Caught | None = None


def _write(plan: Plan, notes: _Notes, blocked: Blocked) -> dict[Path, FileEdit]:
    written: dict[Path, FileEdit] = {}
    for key, file_edit in plan.files.items():
        try:
            fix_engine.write_atomic(file_edit.path, file_edit.new)
        except OSError as error:
            shown = display_path(file_edit.path)
            message = f"cannot write {shown}: {error.strerror or error}"
            notes.add(Notice.write_error(message, file_edit.path))
            _block(plan, file_edit, blocked)
            continue
        written[key] = file_edit
    return written


def _block(plan: Plan, file_edit: FileEdit, blocked: Blocked) -> None:
    """The fixes that edited this file take their next placement in the next round."""
    for violation, placement in plan.chosen:
        if file_edit.carries(violation):
            blocked.add((identity(violation), placement.kind))


def _verified_round(
    request: CheckRequest,
    index: ProjectIndex,
    plan: Plan,
    written: dict[Path, FileEdit],
    baselines: dict[Path, _Watched],
    blocked: Blocked,
    notes: _Notes,
    progress: Progress | None,
    cache: OutcomeCache | None,
) -> CheckResult:
    """The check after the round, with every file whose edits broke a config put back."""
    index.files_changed()
    after = run_check(request, Loader(), progress, indexes=index.indexes, cache=cache)
    culprits: dict[Path, str] = {}
    written_files = set(written)
    checking = [watched for watched in baselines.values() if watched.files & written_files]
    for watched, verdict in zip(checking, _verdicts(checking, after, index), strict=True):
        if verdict.failure is not None:
            notes.add(crash_log.report(verdict.failure))
        if verdict.reason is not None:
            for file in sorted(watched.files & written_files):
                culprits.setdefault(file, verdict.reason)
    if not culprits:
        return after
    for file, reason in culprits.items():
        file_edit = written[file]
        try:
            fix_engine.write_atomic(file_edit.path, file_edit.old)
        except OSError as error:
            message = (
                f"cannot put back {display_path(file_edit.path)} ({reason}): "
                f"{error.strerror or error}"
            )
            notes.add(Notice.write_error(message, file_edit.path))
        about = {identity(violation) for violation, _entry in file_edit.accepted}
        reverted = f"{display_path(file_edit.path)}: fix reverted: {reason}"
        notes.add(Notice.warning(reverted, file_edit.path), about)
        _block(plan, file_edit, blocked)
    index.files_changed()
    del after
    return run_check(request, Loader(), progress, indexes=index.indexes, cache=cache)


def _verdicts(checking: list[_Watched], after: CheckResult, index: ProjectIndex) -> list[_Judged]:
    """Each config's verdict, in order: resolved again on every core (engine/pool.py)."""

    def judged(item: int) -> _Judged:
        watched = checking[item]
        try:
            return _Judged(_verdict(watched, after, index))
        except Exception as error:  # unverifiable is unverified: its edits are put back
            reason = f"{display_path(watched.path)} could not be verified"
            return _Judged(reason, crash_log.caught(error, watched.path))

    return map_in_workers(len(checking), judged, worker_count(len(checking)))


@dataclass(frozen=True, slots=True)
class _Judged:
    """Why the round broke a config (None: it did not), and cfglint's own failure to tell."""

    reason: str | None
    failure: crash_log.Caught | None = None


def _verdict(watched: _Watched, after: CheckResult, index: ProjectIndex) -> str | None:
    """Why the round broke this config (None: it did not)."""
    now: ResolvedConfig | None
    if watched.checked:
        now = after.resolved.get(watched.path)
    else:
        loaded = index.load(watched.path)
        now = loaded if isinstance(loaded, ResolvedConfig) else None
    shown = display_path(watched.path)
    if now is None:
        return f"it made {shown} fail to resolve"
    found = watched.baseline.problem(now.root)
    return None if found is None else f"{found} of {shown}"


def _fixable(result: CheckResult, request: FixRequest) -> list[set[ViolationId]]:
    """Each fixable violation, for every config it applies to (spans move as files change;
    code, target, key and config do not)."""
    return [
        {identity(violation, config) for config in violation.configs}
        for violation in result.violations
        if wants_fix(violation, request)
    ]


def _fixed_count(fixable: list[set[ViolationId]], final: CheckResult) -> int:
    """How many of the first check's fixable violations are gone, for every config."""
    remaining = {
        identity(violation, config)
        for violation in final.violations
        for config in violation.configs
    }
    return sum(1 for about in fixable if not about & remaining)


def planned_fixes(
    result: CheckResult,
    request: FixRequest,
    paths: Sequence[Path] = (),
    *,
    indexes: InheritanceIndexes | None = None,
) -> PlannedFixes:
    """The violations with their `fix` and its edits filled in, for the reports that carry
    edits (the text formats' marks need none: engine/fix_marks.py).

    Each fix is what cfglint's own `fix` would write for it, computed together with
    the other fixes in the same file: where two fixes edit the same place (two overrides of
    `env_cfg` in one leaf), each carries the one combined edit, so that applying either or both
    gives a correct file.
    `indexes`: those of the check that gave `result`. What the plan warns of is the fix
    command's to say, not the report's.
    """
    index = ProjectIndex(result, paths, indexes)
    everything = FixRequest(request.placement, unsafe=True, cli_target=request.cli_target)
    plan = plan_round(result, index, everything, set(), writing=False)
    failures = once(notice for notice in plan.notices if notice.kind is NoticeKind.INTERNAL)
    placed = {id(violation): placement for violation, placement in plan.chosen}
    # An edit goes to the first finding that needs it; a later one sharing it points there, so
    # that applying every fix applies each edit once.
    owners: dict[TextEdit, Violation] = {}
    out = []
    for violation in result.violations:
        intent = violation.fix_intent
        placement = placed.get(id(violation))
        if intent is None or placement is None:
            out.append(replace(violation, fix=None))
            continue
        edits = _published_edits(violation, placement, plan)
        shared = [owners[edit] for edit in edits if edit in owners]
        own = tuple(edit for edit in edits if edit not in owners)
        owners.update((edit, violation) for edit in own)
        applied_with = (shared[0].code, shared[0].span) if shared else None
        fix = Fix(intent.message, intent.applicability, own, applied_with)
        out.append(replace(violation, fix=fix))
    return PlannedFixes(tuple(out), failures)


def _published_edits(
    violation: Violation, placement: Placement, plan: Plan
) -> tuple[TextEdit, ...]:
    edits: list[TextEdit] = []
    for entry in placement.files:
        own = plan.own[(id(violation), real(entry.path))]
        combined = plan.files.get(real(entry.path))
        if combined is None or not combined.carries(violation):
            edits.extend(own)
            continue
        edits.extend(edit for edit in combined.edits if any(_touch(edit, mine) for mine in own))
    return tuple(dict.fromkeys(edits))


def _touch(left: TextEdit, right: TextEdit) -> bool:
    """Whether two edits overlap or insert at the same place."""
    a, b = left.span, right.span
    return (a.line, a.column) <= (b.end_line, b.end_column) and (b.line, b.column) <= (
        a.end_line,
        a.end_column,
    )
