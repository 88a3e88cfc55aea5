"""The check pipeline, end to end: paths in, violations out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from cfglint.discover import Discovered, discover
from cfglint.engine.aggregate import Aggregator
from cfglint.engine.evaluate import evaluate
from cfglint.engine.inheritors import Inheritors
from cfglint.engine.selection import NoqaIndex, Selection
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.rules import CHECK_RULES
from cfglint.rules.cl9xx_loader import WARNING_CODES
from cfglint.settings import Settings, settings_for, target_name_for
from cfglint.targets import Target, TargetRegistry
from cfglint.types import LoadFailure, LoadResult, ResolvedConfig, Violation

Progress = Callable[[Path], None]


@dataclass(frozen=True, slots=True)
class CheckRequest:
    paths: tuple[Path, ...]
    cli_target: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    # Apply `exclude` to paths named explicitly too (ruff's --force-exclude).
    force_exclude: bool = False


@dataclass(frozen=True, slots=True)
class CheckResult:
    violations: tuple[Violation, ...]
    # One-line problems that are not about a config's values (no target, bad settings).
    errors: tuple[str, ...]
    resolved: Mapping[Path, ResolvedConfig]
    targets: Mapping[Path, str] = field(default_factory=dict)

    @property
    def unresolved(self) -> bool:
        return any(
            v.code.startswith("CL90") and v.code != "CL906" and v.severity == "error"
            for v in self.violations
        )

    @property
    def has_errors(self) -> bool:
        """Violations that fail the run; warnings (CL907: skipped) never do."""
        return any(violation.severity == "error" for violation in self.violations)


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


def _load_configs(
    discovered: Discovered, loader: Loader, aggregator: Aggregator, progress: Progress | None
) -> dict[Path, ResolvedConfig]:
    """Load the leaves found, then every config inheriting a file named one by one."""
    resolved: dict[Path, ResolvedConfig] = {}
    loaded: set[Path] = set()

    def take(leaf: Path, result: LoadResult) -> None:
        loaded.add(leaf)
        if progress is not None:
            progress(leaf)
        if isinstance(result, LoadFailure):
            aggregator.add_problems(leaf, result.problems)
        else:
            resolved[leaf] = result

    for leaf in discovered.leaves:
        take(leaf, loader.load(leaf))
    # Every config inheriting a named file, failures included: a commit that breaks a base
    # must fail on the configs it breaks, whatever else the commit touches.
    inheritors = Inheritors(loader)
    for named in discovered.named:
        found = False
        for leaf, result in inheritors.of(named):
            found = True
            if leaf not in loaded:
                take(leaf, result)
        if not found and named in discovered.bases:
            # A base nothing inherits yet is still checked for what would break its first user.
            alone = loader.load(named)
            if isinstance(alone, LoadFailure):
                aggregator.add_problems(named, alone.problems)
    return resolved


def run_check(
    request: CheckRequest, loader: Loader | None = None, progress: Progress | None = None
) -> CheckResult:
    loader = loader or Loader()
    discovered = discover(request.paths, request.force_exclude)
    aggregator = Aggregator()
    errors: list[str] = []
    for problem in discovered.problems:
        aggregator.add_problems(problem.span.path, [problem])

    resolved = _load_configs(discovered, loader, aggregator, progress)
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
        if violation.code in WARNING_CODES:
            violation = replace(violation, severity="warning")
        kept.append(violation)
    return CheckResult(tuple(kept), tuple(dict.fromkeys(errors)), resolved, target_of)
