"""The check pipeline, end to end: paths in, violations out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cfglint.discover import discover, leaves_under
from cfglint.engine.aggregate import Aggregator
from cfglint.engine.evaluate import evaluate
from cfglint.engine.selection import NoqaIndex, Selection
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.rules import CHECK_RULES
from cfglint.settings import Settings, settings_for, target_name_for
from cfglint.targets import Target, TargetRegistry
from cfglint.types import LoadFailure, ResolvedConfig, Violation

Progress = Callable[[Path], None]


@dataclass(frozen=True, slots=True)
class CheckRequest:
    paths: tuple[Path, ...]
    cli_target: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckResult:
    violations: tuple[Violation, ...]
    # One-line problems that are not about a config's values (no target, bad settings).
    errors: tuple[str, ...]
    resolved: Mapping[Path, ResolvedConfig]
    targets: Mapping[Path, str] = field(default_factory=dict)

    @property
    def unresolved(self) -> bool:
        return any(v.code.startswith("CL90") and v.code != "CL906" for v in self.violations)


class _Targets:
    """One registry per settings file, so each project's `extra-targets` are honoured."""

    def __init__(self) -> None:
        self._registries: dict[Path | None, TargetRegistry] = {}

    def get(self, name: str, settings: Settings) -> Target:
        if settings.source not in self._registries:
            self._registries[settings.source] = TargetRegistry(settings.extra_targets)
        return self._registries[settings.source].get(name)


def is_fragment(config: ResolvedConfig) -> bool:
    """A config without a `model` (a TTA snippet, a dataset recipe) is never launched by
    itself: it is checked through the configs that inherit it."""
    return "model" not in config.root.entries


def _inheritors(
    bases: Sequence[Path], resolved: dict[Path, ResolvedConfig], loader: Loader
) -> list[Path]:
    """Leaves under each base's project root that inherit a base no checked leaf covers."""
    covered = {path for config in resolved.values() for path in config.files}
    found: list[Path] = []
    for base in bases:
        if base in covered:
            continue
        for leaf in leaves_under(settings_for(base).root):
            result = loader.load(leaf)
            if isinstance(result, ResolvedConfig) and base in result.files:
                if leaf not in resolved:
                    resolved[leaf] = result
                    found.append(leaf)
                covered.update(result.files)
    return found


def run_check(
    request: CheckRequest, loader: Loader | None = None, progress: Progress | None = None
) -> CheckResult:
    loader = loader or Loader()
    discovered = discover(request.paths)
    aggregator = Aggregator()
    errors: list[str] = []
    resolved: dict[Path, ResolvedConfig] = {}
    for problem in discovered.problems:
        aggregator.add_problems(problem.span.path, [problem])

    leaves = list(discovered.leaves)
    for leaf in leaves:
        result = loader.load(leaf)
        if progress is not None:
            progress(leaf)
        if isinstance(result, LoadFailure):
            aggregator.add_problems(leaf, result.problems)
        else:
            resolved[leaf] = result
    leaves.extend(_inheritors(discovered.bases, resolved, loader))

    targets = _Targets()
    target_of: dict[Path, str] = {}
    for leaf, config in resolved.items():
        if is_fragment(config):
            continue
        settings = settings_for(leaf)
        try:
            name = target_name_for(leaf, request.cli_target)
            target = targets.get(name, settings)
        except UserError as error:
            message = str(error)
            errors.append(message if message.startswith(str(leaf)) else f"{leaf}: {message}")
            continue
        target_of[leaf] = target.name
        aggregator.add_findings(leaf, target.name, evaluate(config, target, CHECK_RULES))

    noqa = NoqaIndex()
    kept = []
    for violation in aggregator.violations():
        settings = settings_for(violation.configs[0] if violation.configs else violation.path)
        selection = Selection(
            request.select or settings.table.select or ("ALL",),
            (*settings.table.ignore, *request.ignore),
        )
        if not selection.wants(violation.code):
            continue
        if noqa.suppressed(violation.path, violation.span.line, violation.code):
            continue
        kept.append(violation)
    return CheckResult(tuple(kept), tuple(dict.fromkeys(errors)), resolved, target_of)
