"""The check itself: the changed files go to the same pipeline as `cfglint check`, the way the
pre-commit hook passes them, so every config inheriting a changed file is checked too; then the
fixes with their edits, as `cfglint fix` would write them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cfglint.engine.fix_request import FixRequest
from cfglint.engine.fixes import planned_fixes
from cfglint.engine.inheritors import InheritanceIndexes
from cfglint.engine.run import CheckRequest, run_check
from cfglint.loader import Loader
from cfglint.settings import settings_for
from cfglint.types import Notice, Violation


@dataclass(frozen=True, slots=True)
class CheckOptions:
    target: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Checked:
    violations: tuple[Violation, ...]  # each with its fix and edits, where one is placed
    # What is no finding: errors (a config without target), cfglint's own failures, warnings.
    notices: tuple[Notice, ...]
    configs: tuple[Path, ...]  # the configs checked against a target
    unresolved: bool  # a config could not be read or resolved (CL9xx): exit code 2


def check_files(repo: Path, paths: tuple[Path, ...], options: CheckOptions) -> Checked:
    if not paths:
        return Checked((), (), (), False)
    # `force_exclude`: the settings' `exclude` holds for the changed files too (as the hook).
    request = CheckRequest(paths, options.target, options.select, options.ignore, True)
    indexes = InheritanceIndexes()
    # The loader reads no environment variable: `{{$ENV:...}}` takes its default, so no secret
    # of the job's environment can reach a message.
    result = run_check(request, Loader(), indexes=indexes)
    placement = settings_for(repo).table.fix_placement
    fix_request = FixRequest(placement, unsafe=False, cli_target=options.target)
    planned = planned_fixes(result, fix_request, paths, indexes=indexes)
    return Checked(
        planned.violations,
        (*result.notices, *planned.notices),
        tuple(sorted(result.targets)),
        result.unresolved,
    )
