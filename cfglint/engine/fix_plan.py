"""One round of fixes, planned: each violation's placement, and each file's new text.

Every applicable fix takes its best placement (placement.py) that gives edits on its own; the
fixes are then combined per file (one consistent set of edits per file, so two overrides of
`env_cfg` in one leaf become one). A fix that does not combine with the ones already taken for a
file waits for the next round, when the file has changed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cfglint import files
from cfglint import fix as fix_engine
from cfglint.crash_log import internal_error
from cfglint.engine.fix_request import FixRequest, wants_fix
from cfglint.engine.placement import FileChanges, Placement, PlacementKind, Placer
from cfglint.engine.project_index import ProjectIndex, real
from cfglint.engine.run import CheckResult
from cfglint.paths import display_path
from cfglint.types import Notice, ResolvedKeys, TextEdit, Violation

EDIT_ERRORS = (
    fix_engine.FixNotApplicable,
    fix_engine.OverlappingEditsError,
    OSError,
    UnicodeDecodeError,
)


# A violation across rounds: its spans move as files change; its code, target, key and file
# (the one it sits in, or a config it applies to) do not.
ViolationId = tuple[str, str | None, str | None, Path]
Blocked = set[tuple[ViolationId, PlacementKind]]


def identity(violation: Violation, config: Path | None = None) -> ViolationId:
    """The violation by the file it sits in, or as it applies to ``config``."""
    file = violation.path if config is None else config
    return (violation.code, violation.target, violation.key, real(file))


def read_source(path: Path) -> str:
    """The text a fix edits, line endings as they are (OSError, UnicodeDecodeError)."""
    return files.read_text_capped(path)


class Editors:
    """FileEditors for a round. A parsed file takes far more memory than its text (libcst nodes
    and positions), so only the most recently used few stay parsed; the fixes of one file are
    mostly planned one after the other."""

    KEEP = 32

    def __init__(self) -> None:
        self._editors: OrderedDict[Path, fix_engine.FileEditor | Exception] = OrderedDict()

    def get(self, path: Path) -> fix_engine.FileEditor:
        key = real(path)
        if key in self._editors:
            self._editors.move_to_end(key)
        else:
            try:
                self._editors[key] = fix_engine.FileEditor(path, read_source(path))
            except (OSError, UnicodeDecodeError) as error:
                self._editors[key] = error
            if len(self._editors) > self.KEEP:
                self._editors.popitem(last=False)
        found = self._editors[key]
        if isinstance(found, Exception):
            raise found
        return found

    def edits(self, entries: Sequence[FileChanges]) -> tuple[TextEdit, ...]:
        """The edits of several violations' changes to one file, computed together."""
        editor = self.get(entries[0].path)
        changes = [change for entry in entries for change in entry.changes]
        anchored = [change for entry in entries for change in entry.anchored]
        placed = [edit for entry in entries for edit in entry.edits]
        resolved: ResolvedKeys | None = None
        for entry in entries:
            if entry.resolved is not None:
                resolved = entry.resolved if resolved is None else resolved | entry.resolved
        return tuple(dict.fromkeys([*editor.edits(changes, anchored, resolved), *placed]))


@dataclass
class FileEdit:
    path: Path  # as the violations name it (for messages and diffs)
    old: str
    new: str
    # The violations whose changes this file's edits carry, with those changes.
    accepted: list[tuple[Violation, FileChanges]] = field(default_factory=list)
    edits: tuple[TextEdit, ...] = ()

    def carries(self, violation: Violation) -> bool:
        return any(violation is other for other, _entry in self.accepted)


@dataclass
class Plan:
    files: dict[Path, FileEdit] = field(default_factory=dict)  # by real path
    chosen: list[tuple[Violation, Placement]] = field(default_factory=list)
    # Warnings (a fix not placed, or placed with a caveat), files it cannot write (errors),
    # cfglint's own failures on a file (internal errors: its fixes are left out).
    notices: list[Notice] = field(default_factory=list)
    # Each chosen fix's own edits per file (id of the violation, real path), for reports.
    own: dict[tuple[int, Path], tuple[TextEdit, ...]] = field(default_factory=dict)

    def diff(self) -> str:
        ordered = sorted(self.files.values(), key=lambda item: display_path(item.path))
        return "".join(
            fix_engine.unified_diff(display_path(item.path), item.old, item.new) for item in ordered
        )


def plan_round(
    result: CheckResult,
    index: ProjectIndex,
    request: FixRequest,
    blocked: Blocked,
    *,
    writing: bool,
) -> Plan:
    plan = Plan()
    placer = Placer(result, index, request.placement, writing=writing)
    editors = Editors()
    for violation in result.violations:
        if not wants_fix(violation, request):
            continue
        try:
            placement = _choose(violation, placer, editors, blocked, plan)
        except Exception as error:  # a bug on one file must not stop the other fixes
            plan.notices.append(internal_error(error, violation.path))
            continue
        if placement is None:
            continue
        plan.chosen.append((violation, placement))
        for entry in placement.files:
            try:
                _combine(plan, editors, violation, entry)
            except Exception as error:
                plan.notices.append(internal_error(error, entry.path))
    for key, file_edit in list(plan.files.items()):
        try:
            file_edit.new = fix_engine.apply_text_edits(file_edit.old, file_edit.edits)
            invalid = fix_engine.check_still_valid(file_edit.path, file_edit.new)
        except Exception as error:
            plan.notices.append(internal_error(error, file_edit.path))
            del plan.files[key]
            continue
        if invalid is not None:
            plan.notices.append(
                Notice.warning(
                    f"{display_path(file_edit.path)}: fixes not applied, the result would not "
                    f"parse: {invalid}",
                    file_edit.path,
                )
            )
        if invalid is not None or file_edit.new == file_edit.old:
            del plan.files[key]
    if request.placement == "origin":
        plan.notices.extend(_origin_warnings(plan, placer))
    return plan


def _choose(
    violation: Violation, placer: Placer, editors: Editors, blocked: Blocked, plan: Plan
) -> Placement | None:
    """The first placement of the violation that gives edits on its own."""
    candidates = placer.candidates(violation)
    plan.notices.extend(candidates.errors)
    if candidates.conflict is not None:
        plan.notices.append(candidates.conflict)
        return None
    reasons = list(candidates.reasons)
    for placement in candidates.placements:
        if (identity(violation), placement.kind) in blocked:
            continue
        try:
            own = {real(entry.path): editors.edits([entry]) for entry in placement.files}
        except EDIT_ERRORS as error:
            reasons.append(str(error))
            continue
        plan.own.update(((id(violation), path), edits) for path, edits in own.items())
        return placement
    if reasons and not candidates.errors:
        span = violation.span
        where = f"{display_path(span.path)}:{span.line}:{span.column}: {violation.code}"
        message = f"{where}: cannot place the fix: {reasons[-1]}"
        plan.notices.append(Notice.warning(message, span.path, span.line))
    return None


def _combine(plan: Plan, editors: Editors, violation: Violation, entry: FileChanges) -> None:
    """Add the entry to its file's edits, unless it does not go together with those taken."""
    key = real(entry.path)
    if key not in plan.files:
        try:
            source = read_source(entry.path)
        except (OSError, UnicodeDecodeError):  # gone or changed since it was planned
            return
        plan.files[key] = FileEdit(entry.path, source, source)
    file_edit = plan.files[key]
    try:
        edits = editors.edits([*(taken for _v, taken in file_edit.accepted), entry])
        fix_engine.apply_text_edits(file_edit.old, edits)
    except EDIT_ERRORS:
        return
    file_edit.accepted.append((violation, entry))
    file_edit.edits = edits


def _origin_warnings(plan: Plan, placer: Placer) -> list[Notice]:
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
                    Notice.warning(
                        f"{display_path(entry.path)}: changed for {violation.target} "
                        f"(--fix-placement origin), also inherited by {names}{more}",
                        entry.path,
                    )
                )
    return warnings
