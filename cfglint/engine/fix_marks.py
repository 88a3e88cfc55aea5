"""A report's `[*]` marks without edits: which violations some placement of their fix exists
for.

Each config's own check already says whether an override in the config itself carries each of
its fixes (engine/outcome.py). Only a violation that answer does not settle asks fix placement
(engine/placement.py), which is imported then: a pre-commit run's text report rarely needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.engine.fix_request import FixRequest, PlannedFixes
from cfglint.settings import FixPlacement
from cfglint.types import Fix, Violation

if TYPE_CHECKING:
    from cfglint.engine.inheritors import InheritanceIndexes
    from cfglint.engine.run import CheckResult


def leaf_placeable(result: CheckResult, violation: Violation, mode: FixPlacement) -> bool:
    """Whether every config's own check placed the fix in the config itself, in a placement
    mode that may put it there (a fix of code is placed in its file already)."""
    intent = violation.fix_intent
    return (
        mode != "origin"
        and intent is not None
        and intent.placed_in is None
        and result.leaf_fixable(violation)
    )


def planned_marks(
    result: CheckResult,
    request: FixRequest,
    paths: Sequence[Path] = (),
    indexes: InheritanceIndexes | None = None,
) -> PlannedFixes:
    """The violations, each with a `fix` of its message and applicability and no edits when
    some placement exists for it: enough for the `[*]` marks and help lines of the text
    formats, without parsing any file with libcst (whether the edits can be made is only known
    with them: engine/fixes.py's `planned_fixes`)."""
    mode = request.placement
    placeable: set[int] = set()  # by id: violations compare by value, and many are alike
    unsettled: list[Violation] = []
    for violation in result.violations:
        if violation.fix_intent is None:
            continue
        if leaf_placeable(result, violation, mode):
            placeable.add(id(violation))
        else:
            unsettled.append(violation)
    if unsettled:
        from cfglint.engine.placement import Placer
        from cfglint.engine.project_index import ProjectIndex

        placer = Placer(result, ProjectIndex(result, paths, indexes), mode, writing=False)
        placeable.update(id(violation) for violation in unsettled if placer.placeable(violation))
    return PlannedFixes(
        tuple(
            replace(violation, fix=Fix(intent.message, intent.applicability, ()))
            if (intent := violation.fix_intent) is not None and id(violation) in placeable
            else replace(violation, fix=None)
            for violation in result.violations
        )
    )
