"""The check pipeline, end to end: paths in, violations out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from cfglint.crash_log import internal_error
from cfglint.discover import discover
from cfglint.engine.aggregate import Aggregator
from cfglint.engine.evaluate import evaluate
from cfglint.engine.inheritors import InheritanceIndexes, Inheritors, real
from cfglint.engine.launches import (
    EntrySpec,
    LaunchChecker,
    ProjectLaunchers,
    check_launches,
    read_launchers,
    settings_entries,
)
from cfglint.engine.selection import NoqaIndex, Selection
from cfglint.errors import NoTargetError, UserError
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.rules import CHECK_RULES
from cfglint.rules.base import Rule
from cfglint.rules.cl9xx_loader import WARNING_CODES
from cfglint.settings import (
    HOW_TO_SET_A_TARGET,
    Settings,
    declared_choice,
    settings_for,
    target_choice,
)
from cfglint.targets import Target, TargetRegistry
from cfglint.targets.registry import unknown_target
from cfglint.types import (
    Discovered,
    HostFacts,
    LaunchView,
    LoadFailure,
    LoadResult,
    ResolvedConfig,
    Violation,
)


class Progress(Protocol):
    """Told how many more configs the check will load, then each config as it is loaded."""

    def expect(self, count: int, /) -> None: ...

    def __call__(self, config: Path, /) -> None: ...


@dataclass(frozen=True, slots=True)
class CheckRequest:
    paths: tuple[Path, ...]
    cli_target: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    # Apply `exclude` to paths named explicitly too (ruff's --force-exclude).
    force_exclude: bool = False
    # `--entry SCRIPT`: every config is checked as this script launches it.
    entries: tuple[EntrySpec, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckResult:
    violations: tuple[Violation, ...]
    # One-line problems that are not about a config's values (no target, bad settings).
    errors: tuple[str, ...]
    resolved: Mapping[Path, ResolvedConfig]
    targets: Mapping[Path, str] = field(default_factory=dict)
    # Things to tell the user that are no finding: noqa comments not understood, nothing checked.
    warnings: tuple[str, ...] = ()
    # The launches checked, with every path through their entry scripts.
    launches: tuple[LaunchView, ...] = ()
    # cfglint's own failures, one line each (`internal error in PATH: ...`, traceback logged):
    # the file is not checked, the others are, and the run exits 2.
    internal_errors: tuple[str, ...] = ()

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


class Registries:
    """One target registry per settings file, so each project's `extra-targets` are honoured;
    and through them, each config's target."""

    def __init__(self) -> None:
        # A broken extra-target file is read once: its error stands in for the registry.
        self._registries: dict[Path | None, TargetRegistry | str] = {}

    def registry_for(self, settings: Settings) -> TargetRegistry:
        """The registry of the project these settings govern (a UserError: a target file is
        broken)."""
        if settings.source not in self._registries:
            try:
                self._registries[settings.source] = TargetRegistry(settings.extra_targets)
            except UserError as error:
                self._registries[settings.source] = str(error)
        registry = self._registries[settings.source]
        if isinstance(registry, str):
            raise UserError(registry)
        return registry

    def for_config(
        self, leaf: Path, cli_target: str | None, settings: Settings, *, named: bool = True
    ) -> Target:
        """The leaf's target. A UserError names what is wrong where it was written: the
        config itself, the settings file, a target file, or `--target`, so an error that is
        not about this config reads the same for every config and is printed once.

        `--target` is for the configs the command line names or finds (`named`); a config
        brought in because it inherits a named file keeps the target it declares (its comment,
        the settings), and takes `--target` only when it declares none.
        """
        choice = declared_choice(leaf) if not named and cli_target is not None else None
        choice = choice or target_choice(leaf, cli_target)
        registry = self.registry_for(settings)
        if choice.name not in registry.names():
            raise UserError(f"{choice.source}: {unknown_target(choice.name, registry.names())}")
        return registry.get(choice.name)


def _selection(settings: Settings, request: CheckRequest) -> Selection:
    return Selection(
        request.select or settings.table.select or ("ALL",),
        (*settings.table.ignore, *request.ignore),
    )


def is_fragment(config: ResolvedConfig) -> bool:
    """A config without a `model` (a TTA snippet, a dataset recipe) is never launched by
    itself: it is checked through the configs that inherit it."""
    return "model" not in config.root.entries


def _load_configs(
    discovered: Discovered,
    loader: Loader,
    aggregator: Aggregator,
    progress: Progress | None,
    indexes: InheritanceIndexes,
    internal: list[str],
) -> dict[Path, ResolvedConfig]:
    """Load the leaves found, then every config inheriting a file named one by one."""
    resolved: dict[Path, ResolvedConfig] = {}
    loaded: set[Path] = set()

    def take(leaf: Path, result: LoadResult) -> None:
        loaded.add(leaf)
        if progress is not None:
            progress(leaf)
        if isinstance(result, LoadFailure):
            if result.internal is not None:
                internal.append(result.internal)
            aggregator.add_problems(leaf, result.problems)
        else:
            resolved[leaf] = result

    if progress is not None:
        progress.expect(len(discovered.leaves))
    for leaf in discovered.leaves:
        take(leaf, loader.load(leaf))
    # Every config inheriting a named file, failures included: a commit that breaks a base
    # must fail on the configs it breaks, whatever else the commit touches.
    inheritors = Inheritors(loader, indexes)
    for named in discovered.named:
        found = False
        for leaf, result in inheritors.of(named):
            found = True
            if leaf not in loaded:
                if progress is not None:
                    progress.expect(1)  # found as it loads: the total grows
                take(leaf, result)
        if not found and named in discovered.bases:
            # A base nothing inherits yet is still checked for what would break its first user.
            alone = loader.load(named)
            if isinstance(alone, LoadFailure):
                if alone.internal is not None:
                    internal.append(alone.internal)
                aggregator.add_problems(named, alone.problems)
    return resolved


def run_check(
    request: CheckRequest,
    loader: Loader | None = None,
    progress: Progress | None = None,
    *,
    indexes: InheritanceIndexes | None = None,
) -> CheckResult:
    """`indexes`: who inherits what, shared by the checks of one fix loop (fixes never change
    `_base_`), and with its fix placement."""
    loader = loader or Loader()
    discovered = discover(request.paths, request.force_exclude)
    aggregator = Aggregator()
    errors: list[str] = []
    for problem in discovered.problems:
        aggregator.add_problems(problem.span.path, [problem])

    indexes = indexes or InheritanceIndexes()
    launchers = read_launchers(request.paths, discovered.launchers)
    entry_scripts = _entry_scripts(request, launchers)
    if entry_scripts:
        # An entry script is a program, never a config.
        discovered = replace(
            discovered, leaves=tuple(p for p in discovered.leaves if real(p) not in entry_scripts)
        )
    internal: list[str] = []
    resolved = _load_configs(discovered, loader, aggregator, progress, indexes, internal)
    found_leaves = set(discovered.leaves)
    targets = Registries()

    def rules_for(config: Path) -> list[Rule]:
        # A rule that is not selected does not run, so it asks for no value (no CL906 for it).
        selection = _selection(settings_for(config), request)
        return [rule for rule in CHECK_RULES if selection.wants(rule.code)]

    no_target: dict[str, Path] = {}

    def target_for(config: Path, named: bool) -> Target:
        try:
            return targets.for_config(config, request.cli_target, settings_for(config), named=named)
        except NoTargetError as error:
            no_target[str(error)] = config
            raise

    checker = LaunchChecker(loader, aggregator, target_for, rules_for, NEUTRAL_HOST)
    named_files = {real(path) for path in discovered.named}
    launched = check_launches(
        checker,
        launchers.relevant({real(path) for path in resolved}, named_files),
        resolved,
        lambda config: request.entries or settings_entries(settings_for(config)),
        lambda config: config in found_leaves,
    )
    errors.extend(launched.errors)
    internal.extend(launched.internal)
    for covered in launched.covered:
        resolved.pop(covered, None)  # what stopped a launch short of the Runner is reported
    resolved.update(launched.launched)
    target_of: dict[Path, str] = dict(launched.targets)
    for leaf, config in resolved.items():
        if is_fragment(config) or leaf in target_of:
            continue
        try:
            target = target_for(leaf, leaf in found_leaves)
        except UserError as error:
            errors.append(str(error))
            continue
        target_of[leaf] = target.name
        try:
            findings = list(evaluate(config, target, rules_for(leaf)))
        except Exception as error:  # a bug for this config must not stop the others
            internal.append(internal_error(error, leaf))
            continue
        aggregator.add_findings(leaf, target.name, findings, config)

    noqa = NoqaIndex()
    kept = []
    for violation in aggregator.violations():
        settings = settings_for(violation.configs[0] if violation.configs else violation.path)
        if not _selection(settings, request).wants(violation.code, violation.needed_by):
            continue
        if noqa.suppressed(
            violation.path, violation.span.line, violation.code, violation.needed_by
        ):
            continue
        if violation.code in WARNING_CODES:
            violation = replace(violation, severity="warning")
        kept.append(violation)
    warnings = [*noqa.warnings, *launched.warnings, *_unreadable_folders(indexes)]
    skipped = [path for path in discovered.skipped if real(path) not in entry_scripts]
    if skipped:
        count = len(skipped)
        warnings.append(
            f"skipped {count} .py file{'s' if count > 1 else ''} that do not look like "
            "MMEngine configs (code, or no config keys); name a file to check it anyway, or "
            "set `include` under [tool.cfglint]"
        )
    nothing_found = not (discovered.leaves or discovered.bases or discovered.launchers)
    if nothing_found and not discovered.problems:
        warnings.append("no config files found under the given paths")
    elif resolved and not target_of and not errors:
        warnings.append(
            "no launchable config checked: every config found lacks `model` (a fragment is "
            "checked through the configs that inherit it)"
        )
    return CheckResult(
        tuple(kept),
        tuple(_no_target_once(errors, no_target)),
        resolved,
        target_of,
        tuple(warnings),
        tuple(launched.views),
        tuple(dict.fromkeys(internal)),
    )


NEUTRAL_HOST = HostFacts(mmengine_device="cpu", cuda=False)


def _no_target_once(errors: list[str], no_target: Mapping[str, Path]) -> list[str]:
    """The errors, each once, with the configs that have no target told in one line."""
    once = list(dict.fromkeys(errors))
    if len(no_target) < 2:
        return once
    configs = sorted(display_path(path) for path in no_target.values())
    shown = ", ".join(configs[:3]) + (f" and {len(configs) - 3} more" if len(configs) > 3 else "")
    first = once.index(next(error for error in once if error in no_target))
    rest = [error for error in once if error not in no_target]
    rest.insert(first, f"no target for {len(configs)} configs ({shown}): {HOW_TO_SET_A_TARGET}")
    return rest


def _entry_scripts(request: CheckRequest, launchers: ProjectLaunchers) -> set[Path]:
    """Entry scripts the command runs configs with (by real path): never checked as configs."""
    scripts = [spec.script for spec in request.entries]
    scripts.extend(launchers.entry_scripts())
    for path in request.paths:
        try:
            scripts.extend(spec.script for spec in settings_entries(settings_for(path)))
        except UserError:
            continue  # reported where the settings are used
    return {real(script) for script in scripts}


def _unreadable_folders(indexes: InheritanceIndexes) -> list[str]:
    """A folder of the project that could not be listed may hold configs inheriting a named
    file: they were not checked, and fixes placed in shared files did not count them."""
    return [
        f"cannot read folder {display_path(folder)}: {reason}; configs in it that may inherit "
        "the files named were not checked"
        for folder, reason in sorted(indexes.unreadable_folders().items())
    ]
