"""Place each violation's fix in concrete files, apply the fixes, verify, repeat until stable.

Each round: every applicable fix takes its best placement (placement.py) that gives edits;
the edits are grouped per file (one consistent set of edits per file), checked to parse,
written; then every config reading an edited file is resolved again. A file whose edits did
not give their configs the intended values, or changed any other key of any config reading it
(a CUDA config sharing a base, a module-level variable that is also a config key), is put
back, and the fixes that used it take their next placement in the next round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from cfglint import fix as fix_engine
from cfglint.engine import verify
from cfglint.engine.inheritors import ProjectIndex, real
from cfglint.engine.placement import FileChanges, Placement, PlacementKind, Placer
from cfglint.engine.run import CheckRequest, CheckResult, run_check
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.settings import FixPlacement
from cfglint.types import (
    REMOVE,
    Applicability,
    Fix,
    KeyChange,
    ResolvedConfig,
    Span,
    TextEdit,
    Violation,
)

MAX_ROUNDS = 5

_EDIT_ERRORS = (
    fix_engine.FixNotApplicable,
    fix_engine.OverlappingEditsError,
    OSError,
    UnicodeDecodeError,
)


@dataclass(frozen=True, slots=True)
class FixRequest:
    placement: FixPlacement
    unsafe: bool
    cli_target: str | None = None


@dataclass(frozen=True, slots=True)
class FixOutcome:
    final: CheckResult
    # Violations of the first check that are gone after the fixes.
    fixed_count: int
    diff: str
    problems: tuple[str, ...]  # warnings: a fix not applied, reverted, or placed with a caveat
    errors: tuple[str, ...] = ()  # files that could not be written (exit code 2)


def wants_fix(violation: Violation, request: FixRequest) -> bool:
    intent = violation.fix_intent
    return intent is not None and (intent.applicability is Applicability.SAFE or request.unsafe)


# A violation across rounds: its spans move as files change, its origin file does not.
ViolationId = tuple[str, str | None, str | None, Path]


def _identity(violation: Violation) -> ViolationId:
    return (violation.code, violation.target, violation.key, real(violation.path))


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as stream:
        return stream.read()


class _Editors:
    """One FileEditor per file for a round: each file is read and parsed once."""

    def __init__(self) -> None:
        self._editors: dict[Path, fix_engine.FileEditor | Exception] = {}

    def get(self, path: Path) -> fix_engine.FileEditor:
        key = real(path)
        if key not in self._editors:
            try:
                self._editors[key] = fix_engine.FileEditor(path, _read(path))
            except (OSError, UnicodeDecodeError) as error:
                self._editors[key] = error
        found = self._editors[key]
        if isinstance(found, Exception):
            raise found
        return found

    def edits(self, entries: Sequence[FileChanges]) -> tuple[TextEdit, ...]:
        """The edits of several violations' changes to one file, computed together."""
        editor = self.get(entries[0].path)
        changes = [change for entry in entries for change in entry.changes]
        anchored = [change for entry in entries for change in entry.anchored]
        return tuple(dict.fromkeys(editor.edits(changes, anchored)))


@dataclass
class _FileEdit:
    path: Path  # as the violations name it (for messages and diffs)
    old: str
    new: str
    violations: list[Violation] = field(default_factory=list)
    entries: list[FileChanges] = field(default_factory=list)
    edits: tuple[TextEdit, ...] = ()


@dataclass
class _Plan:
    files: dict[Path, _FileEdit] = field(default_factory=dict)  # by real path
    chosen: list[tuple[Violation, Placement]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    editors: _Editors = field(default_factory=_Editors)


def _choose(
    violation: Violation,
    placer: Placer,
    editors: _Editors,
    blocked: set[tuple[ViolationId, PlacementKind]],
    plan: _Plan,
) -> Placement | None:
    """The first placement of the violation that gives edits on its own."""
    candidates = placer.candidates(violation)
    plan.errors.extend(candidates.errors)
    if candidates.conflict is not None:
        plan.problems.append(candidates.conflict)
        return None
    reasons = list(candidates.reasons)
    for placement in candidates.placements:
        if (_identity(violation), placement.kind) in blocked:
            continue
        try:
            for entry in placement.files:
                editors.edits([entry])
        except _EDIT_ERRORS as error:
            reasons.append(str(error))
            continue
        return placement
    if reasons and not candidates.errors:
        span = violation.span
        where = f"{display_path(span.path)}:{span.line}:{span.column}: {violation.code}"
        plan.problems.append(f"{where}: cannot place the fix: {reasons[-1]}")
    return None


def _plan_round(
    result: CheckResult,
    index: ProjectIndex,
    request: FixRequest,
    blocked: set[tuple[ViolationId, PlacementKind]],
    *,
    writing: bool,
) -> _Plan:
    plan = _Plan()
    placer = Placer(result, index, request.placement, writing=writing)
    editors = plan.editors
    for violation in result.violations:
        if not wants_fix(violation, request):
            continue
        placement = _choose(violation, placer, editors, blocked, plan)
        if placement is None:
            continue
        plan.chosen.append((violation, placement))
        for entry in placement.files:
            key = real(entry.path)
            if key not in plan.files:
                source = _read(entry.path)
                plan.files[key] = _FileEdit(entry.path, source, source)
            file_edit = plan.files[key]
            # Together with the fixes already taken for this file, or in a later round.
            try:
                edits = editors.edits([*file_edit.entries, entry])
                fix_engine.apply_text_edits(file_edit.old, edits)
            except _EDIT_ERRORS:
                continue
            file_edit.entries.append(entry)
            file_edit.edits = edits
            if violation not in file_edit.violations:
                file_edit.violations.append(violation)
    for key, file_edit in list(plan.files.items()):
        file_edit.new = fix_engine.apply_text_edits(file_edit.old, file_edit.edits)
        invalid = fix_engine.check_still_valid(file_edit.path, file_edit.new)
        if invalid is not None:
            plan.problems.append(
                f"{display_path(file_edit.path)}: fixes not applied, the result would not "
                f"parse: {invalid}"
            )
        if invalid is not None or file_edit.new == file_edit.old:
            del plan.files[key]
    if request.placement == "origin":
        plan.problems.extend(_origin_warnings(plan, placer))
    return plan


def _origin_warnings(plan: _Plan, placer: Placer) -> list[str]:
    warnings = []
    for violation, placement in plan.chosen:
        if placement.kind != "origin":
            continue
        for entry in placement.files:
            if real(entry.path) not in plan.files:
                continue
            others = placer.other_targets(entry.path, violation.target)
            if others:
                names = ", ".join(
                    f"{display_path(config.path)} [{config.target or 'no target'}]"
                    for config in others[:3]
                )
                more = f" and {len(others) - 3} more" if len(others) > 3 else ""
                warnings.append(
                    f"{display_path(entry.path)}: changed for {violation.target} "
                    f"(--fix-placement origin), also inherited by {names}{more}"
                )
    return warnings


def _diff(plan: _Plan) -> str:
    ordered = sorted(plan.files.values(), key=lambda item: display_path(item.path))
    return "".join(
        fix_engine.unified_diff(display_path(item.path), item.old, item.new) for item in ordered
    )


class _Verifier:
    """Compares the configs reading the written files before and after a round."""

    def __init__(self, plan: _Plan, written: set[Path], mode: FixPlacement) -> None:
        self._written = written
        self._intended: dict[Path, list[KeyChange]] = {}
        self._allowed: dict[Path, list[tuple[str, ...]]] = {}
        self._by_origin: list[tuple[frozenset[Path], tuple[str, ...]]] = []
        # Literals replaced where they are written. A key of a config being fixed that holds the
        # same literal (a module-level variable such as `backend = 'nccl'` read by the fixed
        # key) changes with it: one value written once, as the file's author meant.
        self._replaced: set[Span] = set()
        for violation, placement in plan.chosen:
            intent = violation.fix_intent
            assert intent is not None
            files = frozenset(real(entry.path) for entry in placement.files)
            if not files & written:
                continue
            self._replaced.update(
                change.span
                for entry in placement.files
                for change in entry.anchored
                if not change.key and change.value is not REMOVE
            )
            for config in violation.configs:
                self._intended.setdefault(real(config), []).extend(intent.changes)
                self._allowed.setdefault(real(config), []).extend(c.key for c in intent.changes)
            if mode == "origin" and placement.kind == "origin":
                # Asked for: the value changes for every config reading the file.
                self._by_origin.extend((files, change.key) for change in intent.changes)

    def problem(
        self,
        config: Path,
        files: frozenset[Path],
        before: ResolvedConfig,
        after: ResolvedConfig | None,
    ) -> str | None:
        """Why the round must not stay for this config, or None."""
        shown = display_path(config)
        if after is None:
            return f"it made {shown} fail to resolve"
        key = real(config)
        allowed = list(self._allowed.get(key, []))
        allowed.extend(k for edited, k in self._by_origin if edited & files)
        changed = verify.unexpected(verify.changed_keys(before.root, after.root), allowed)
        if key in self._intended:
            changed = [
                name
                for name in changed
                if (node := verify.node_at(before.root, name)) is None
                or node.origin.span not in self._replaced
            ]
        if changed:
            return f"it would also change `{verify.dotted(changed[0])}` of {shown}"
        for change in self._intended.get(key, []):
            if not verify.holds(after.root, change):
                return f"it does not set `{verify.dotted(change.key)}` of {shown}"
        return None


def fix_until_stable(
    request: CheckRequest, result: CheckResult, fix_request: FixRequest, *, write: bool
) -> FixOutcome:
    index = ProjectIndex(result, request.paths)
    blocked: set[tuple[ViolationId, PlacementKind]] = set()
    if not write:
        plan = _plan_round(result, index, fix_request, blocked, writing=False)
        return FixOutcome(result, 0, _diff(plan), tuple(dict.fromkeys(plan.problems)))
    first = result
    notes = _Notes()
    errors: list[str] = []
    for round_number in range(MAX_ROUNDS + 1):
        plan = _plan_round(result, index, fix_request, blocked, writing=True)
        notes.extend(plan.problems)
        errors.extend(plan.errors)
        if not plan.files:
            break
        if round_number == MAX_ROUNDS:
            notes.add(f"fixes did not converge after {MAX_ROUNDS} rounds; check the output")
            break
        written = _write(plan, errors, blocked)
        result = _verified_round(request, result, index, plan, written, fix_request, blocked, notes)
    return FixOutcome(
        result,
        _fixed_count(first, result, fix_request),
        "",
        notes.remaining(result),
        tuple(dict.fromkeys(errors)),
    )


class _Notes:
    """Warnings for the user. A note about a fix that was reverted is dropped when a later
    round fixed the violation some other way."""

    def __init__(self) -> None:
        self._notes: dict[str, set[ViolationId] | None] = {}

    def add(self, message: str, about: set[ViolationId] | None = None) -> None:
        self._notes.setdefault(message, about)

    def extend(self, messages: Sequence[str]) -> None:
        for message in messages:
            self.add(message)

    def remaining(self, final: CheckResult) -> tuple[str, ...]:
        left = {_identity(violation) for violation in final.violations}
        return tuple(
            message for message, about in self._notes.items() if about is None or about & left
        )


def _write(
    plan: _Plan, errors: list[str], blocked: set[tuple[ViolationId, PlacementKind]]
) -> dict[Path, _FileEdit]:
    written: dict[Path, _FileEdit] = {}
    for key, file_edit in plan.files.items():
        try:
            fix_engine.write_atomic(file_edit.path, file_edit.new)
        except OSError as error:
            errors.append(f"cannot write {display_path(file_edit.path)}: {error.strerror or error}")
            _block(plan, file_edit, blocked)
            continue
        written[key] = file_edit
    return written


def _block(
    plan: _Plan, file_edit: _FileEdit, blocked: set[tuple[ViolationId, PlacementKind]]
) -> None:
    """The fixes that edited this file take their next placement in the next round."""
    for violation, placement in plan.chosen:
        if any(violation is other for other in file_edit.violations):
            blocked.add((_identity(violation), placement.kind))


def _verified_round(
    request: CheckRequest,
    before: CheckResult,
    index: ProjectIndex,
    plan: _Plan,
    written: dict[Path, _FileEdit],
    fix_request: FixRequest,
    blocked: set[tuple[ViolationId, PlacementKind]],
    notes: _Notes,
) -> CheckResult:
    """The check after the round, with every file whose edits broke a config put back."""
    after = run_check(request, Loader())
    verifier = _Verifier(plan, set(written), fix_request.placement)
    culprits: dict[Path, str] = {}
    pairs = _compared(before, after, index, set(written))
    for config, (files, old, new) in pairs.items():
        reason = verifier.problem(config, files, old, new)
        if reason is not None:
            for file in sorted(files & set(written)):
                culprits.setdefault(file, reason)
    if not culprits:
        return after
    for file, reason in culprits.items():
        file_edit = written[file]
        fix_engine.write_atomic(file_edit.path, file_edit.old)
        about = {_identity(violation) for violation in file_edit.violations}
        notes.add(f"{display_path(file_edit.path)}: fix reverted: {reason}", about)
        _block(plan, file_edit, blocked)
    index.reload(set(culprits))
    return run_check(request, Loader())


def _compared(
    before: CheckResult, after: CheckResult, index: ProjectIndex, written: set[Path]
) -> dict[Path, tuple[frozenset[Path], ResolvedConfig, ResolvedConfig | None]]:
    """Every config reading a written file: (its files, resolved before, resolved after)."""
    pairs: dict[Path, tuple[frozenset[Path], ResolvedConfig, ResolvedConfig | None]] = {}
    for config, old in before.resolved.items():
        files = frozenset(real(file) for file in old.files)
        if files & written:
            pairs[config] = (files, old, after.resolved.get(config))
    for key, (old, new) in index.reload(written).items():
        if old.path not in pairs:
            pairs[old.path] = (index.configs[key].files, old, new)
    return pairs


def _fixed_count(first: CheckResult, final: CheckResult, request: FixRequest) -> int:
    """How many of the first check's fixable violations are gone, for every config they
    applied to (spans move as files change; code, target, key and config do not)."""
    remaining = {
        (violation.code, violation.target, violation.key, real(config))
        for violation in final.violations
        for config in violation.configs
    }
    return sum(
        1
        for violation in first.violations
        if wants_fix(violation, request)
        and not any(
            (violation.code, violation.target, violation.key, real(config)) in remaining
            for config in violation.configs
        )
    )


def planned_fixes(
    result: CheckResult,
    request: FixRequest,
    paths: Sequence[Path] = (),
    *,
    with_edits: bool = True,
) -> list[Violation]:
    """The violations with their `fix` filled in, for reports.

    Without `with_edits` a fix carries its message and applicability but no edits: enough for
    the `[*]` marks and help lines of the text formats, without parsing every file with libcst
    (a violation gets one when some placement exists for it; whether its edits can be made is
    only known with edits).
    With edits, each fix is what cfglint's own `fix` would write for it, computed together with
    the other fixes in the same file: where two fixes edit the same place (two overrides of
    `env_cfg` in one leaf), each carries the one combined edit, so that applying either or both
    gives a correct file.
    """
    index = ProjectIndex(result, paths)
    if not with_edits:
        placer = Placer(result, index, request.placement, writing=False)
        return [
            replace(violation, fix=Fix(intent.message, intent.applicability, ()))
            if (intent := violation.fix_intent) is not None
            and (candidates := placer.candidates(violation)).placements
            and candidates.conflict is None
            else replace(violation, fix=None)
            for violation in result.violations
        ]
    everything = FixRequest(request.placement, unsafe=True, cli_target=request.cli_target)
    plan = _plan_round(result, index, everything, set(), writing=False)
    placed = {id(violation): placement for violation, placement in plan.chosen}
    editors = plan.editors
    out = []
    for violation in result.violations:
        intent = violation.fix_intent
        placement = placed.get(id(violation))
        if intent is None or placement is None:
            out.append(replace(violation, fix=None))
            continue
        edits = _published_edits(violation, placement, plan, editors)
        out.append(replace(violation, fix=Fix(intent.message, intent.applicability, edits)))
    return out


def _published_edits(
    violation: Violation, placement: Placement, plan: _Plan, editors: _Editors
) -> tuple[TextEdit, ...]:
    edits: list[TextEdit] = []
    for entry in placement.files:
        own = editors.edits([entry])
        combined = plan.files.get(real(entry.path))
        if combined is None or not any(violation is other for other in combined.violations):
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
