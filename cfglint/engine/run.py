"""The check pipeline, end to end: paths in, violations out."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from cfglint import crash_log
from cfglint.codes import UNRESOLVED
from cfglint.discover import discover
from cfglint.engine.aggregate import Aggregator, ViolationKey, violation_key
from cfglint.engine.config_check import ConfigChecker, selection
from cfglint.engine.inheritors import InheritanceIndexes, project_root, real
from cfglint.engine.launches import (
    EntrySpec,
    LaunchChecker,
    ProjectLaunchers,
    check_launches,
    read_launchers,
    settings_entries,
)
from cfglint.engine.outcome import ConfigOutcome, OutcomeCache
from cfglint.engine.pool import Job, check_in_workers, worker_count
from cfglint.engine.selection import NoqaIndex
from cfglint.errors import NoTargetError, UserError
from cfglint.loader import Loader
from cfglint.notice import once
from cfglint.paths import display_path
from cfglint.rules.cl9xx_loader import WARNING_CODES
from cfglint.settings import HOW_TO_SET_A_TARGET, settings_for, settings_for_file
from cfglint.targets import Target
from cfglint.types import (
    Discovered,
    HostFacts,
    LaunchView,
    LeafOverride,
    Notice,
    NoticeKind,
    ResolvedConfig,
    Violation,
)

__all__ = ["CheckRequest", "CheckResult", "ConfigFacts", "is_fragment", "run_check"]



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
class ConfigFacts:
    """What the rest of a command needs of a checked config without its tree."""

    files: tuple[Path, ...]  # as ResolvedConfig.files
    fragment: bool  # no `model` (is_fragment)
    overlay: tuple[Path, ...] = ()  # as ResolvedConfig.overlay (a launch)


@dataclass(frozen=True, slots=True)
class CheckResult:
    violations: tuple[Violation, ...]
    # What is no finding, each once: errors (no target, bad settings: the run exits 2);
    # cfglint's own failures (`internal error in PATH: ...`, traceback logged: that file is
    # not checked, the others are, and the run exits 2); warnings (noqa comments not
    # understood, nothing checked). In that order.
    notices: tuple[Notice, ...]
    # Each config checked (fragments included) that resolved; a tree is resolved again when
    # asked for, unless this process still holds it (ResolvedTrees).
    resolved: Mapping[Path, ResolvedConfig]
    targets: Mapping[Path, str] = field(default_factory=dict)
    # The launches checked, with every path through their entry scripts.
    launches: tuple[LaunchView, ...] = ()
    # The same configs as `resolved`, in its order: what is known of each without its tree.
    configs: Mapping[Path, ConfigFacts] = field(default_factory=dict)
    # The violations whose fix each config's own check could write in the config itself.
    leaf_fixes: frozenset[ViolationKey] = frozenset()
    # The override each config's own check found for a violation's fix, by violation and
    # config: only for configs whose tree `resolved` resolves again as that check did (none
    # checked through a launch, whose tree holds what the entry script sets).
    leaf_overrides: Mapping[ViolationKey, Mapping[Path, LeafOverride]] = field(
        default_factory=dict
    )

    @property
    def unresolved(self) -> bool:
        return any(
            v.code in UNRESOLVED and v.severity == "error"
            for v in self.violations
        )

    @property
    def has_errors(self) -> bool:
        """Violations that fail the run; warnings (CL907: skipped) never do."""
        return any(violation.severity == "error" for violation in self.violations)

    def leaf_fixable(self, violation: Violation) -> bool:
        """Whether every config's own check placed this violation's fix in the config itself."""
        return violation_key(violation) in self.leaf_fixes

    def leaf_override(self, violation: Violation, config: Path) -> LeafOverride | None:
        """The override `config`'s own check found for this violation's fix (None: not known
        without its tree)."""
        by_config = self.leaf_overrides.get(violation_key(violation))
        return by_config.get(config) if by_config is not None else None


class ResolvedTrees(Mapping[Path, ResolvedConfig]):
    """The checked configs' trees: held, or resolved again by a Loader when asked for (the
    check itself kept only each config's outcome, engine/outcome.py). A config that no longer
    resolves (its file changed since) is missing."""

    def __init__(
        self, order: Sequence[Path], held: Mapping[Path, ResolvedConfig], loader: Loader
    ) -> None:
        self._order = tuple(order)
        self._members = frozenset(order)
        self._held = dict(held)
        self._loader = loader

    def __getitem__(self, path: Path) -> ResolvedConfig:
        found = self._held.get(path)
        if found is not None:
            return found
        if path not in self._members:
            raise KeyError(path)
        loaded = self._loader.load(path)
        if not isinstance(loaded, ResolvedConfig):
            raise KeyError(path)
        return loaded

    def __iter__(self) -> Iterator[Path]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, path: object) -> bool:
        return path in self._members


def is_fragment(config: ResolvedConfig) -> bool:
    """A config without a `model` (a TTA snippet, a dataset recipe) is never launched by
    itself: it is checked through the configs that inherit it."""
    return "model" not in config.root.entries


# The configs that may inherit each file named one by one.
Candidates = dict[Path, list[Path]]


def _jobs(discovered: Discovered, indexes: InheritanceIndexes) -> tuple[list[Job], Candidates]:
    """The configs to check, in the order a check takes them: the leaves found, then every
    config that may inherit a file named one by one (each once); and those candidates per
    named file (only the ones whose resolution goes through it are taken)."""
    jobs: dict[Path, bool] = {leaf: True for leaf in discovered.leaves}
    candidates: Candidates = {}
    for named in discovered.named:
        index = indexes.for_root(project_root(named))
        candidates[named] = index.candidates(named)
        for candidate in candidates[named]:
            jobs.setdefault(candidate, False)
    return list(jobs.items()), candidates


def _outcomes(
    jobs: Sequence[Job],
    checker: ConfigChecker,
    cache: OutcomeCache | None,
    progress: Progress | None,
) -> dict[Path, ConfigOutcome]:
    """Each job's outcome: stored in the cache, else computed here or in worker processes (and
    stored)."""
    found: dict[Path, ConfigOutcome] = {}
    todo: list[Job] = []
    if progress is not None:
        progress.expect(len(jobs))
    for path, named in jobs:
        hit = cache.lookup(path, named) if cache is not None else None
        if hit is None:
            todo.append((path, named))
            continue
        found[path] = hit
        if progress is not None:
            progress(path)

    def done(outcome: ConfigOutcome, named: bool) -> None:
        if cache is not None:
            settings = settings_for_file(outcome.path)
            depends = (
                *checker.extra_reads(outcome.files),
                *checker.registries.reads(settings),
            )
            cache.store(outcome, named, depends)

    computed = check_in_workers(checker, todo, worker_count(len(todo)), done, progress)
    found.update((outcome.path, outcome) for outcome in computed)
    return {path: found[path] for path, _named in jobs}


def _taken(
    discovered: Discovered,
    jobs_done: Mapping[Path, ConfigOutcome],
    candidates: Candidates,
    checker: ConfigChecker,
    aggregator: Aggregator,
    internal: list[Notice],
) -> dict[Path, ConfigOutcome]:
    """The configs the check takes, in its order: the leaves found, then every config
    inheriting a file named one by one; the ones that resolved are returned, the others'
    problems go to the aggregator."""
    resolved: dict[Path, ConfigOutcome] = {}
    loaded: set[Path] = set()

    def take(leaf: Path, outcome: ConfigOutcome) -> None:
        loaded.add(leaf)
        if outcome.resolved:
            resolved[leaf] = outcome
            return
        if outcome.load_internal is not None:
            internal.append(crash_log.report(outcome.load_internal))
        aggregator.add_problems(leaf, outcome.problems)

    for leaf in discovered.leaves:
        take(leaf, jobs_done[leaf])
    # Every config inheriting a named file, failures included: a commit that breaks a base
    # must fail on the configs it breaks, whatever else the commit touches.
    for named in discovered.named:
        key = real(named)
        found = False
        for candidate in candidates[named]:
            outcome = jobs_done[candidate]
            if not any(real(file) == key for file in outcome.files):
                continue
            found = True
            if candidate not in loaded:
                take(candidate, outcome)
        if not found and named in discovered.bases:
            # A base nothing inherits yet is still checked for what would break its first user.
            alone = checker.load(named)
            if not isinstance(alone, ResolvedConfig):
                if alone.internal is not None:
                    internal.append(crash_log.report(alone.internal))
                aggregator.add_problems(named, alone.problems)
    return resolved


def run_check(
    request: CheckRequest,
    loader: Loader | None = None,
    progress: Progress | None = None,
    *,
    indexes: InheritanceIndexes | None = None,
    cache: OutcomeCache | None = None,
) -> CheckResult:
    """`indexes`: who inherits what, shared by the checks of one fix loop (fixes never change
    `_base_`), and with its fix placement. `cache`: each config's outcome from an earlier run,
    while what it was computed from is unchanged (cfglint/cache/configs.py)."""
    recording = cache.recording() if cache is not None else contextlib.nullcontext()
    with recording:
        return _run_check(request, loader or Loader(), progress, indexes, cache)


def _run_check(
    request: CheckRequest,
    loader: Loader,
    progress: Progress | None,
    indexes: InheritanceIndexes | None,
    cache: OutcomeCache | None,
) -> CheckResult:
    discovered = discover(request.paths, request.force_exclude)
    aggregator = Aggregator()
    errors: list[Notice] = []
    for problem in discovered.problems:
        aggregator.add_problems(problem.span.path, [problem])

    indexes = indexes or InheritanceIndexes()
    launchers = read_launchers(request.paths, discovered.launchers, indexes)
    entry_scripts = _entry_scripts(request, launchers)
    if entry_scripts:
        # An entry script is a program, never a config.
        discovered = replace(
            discovered, leaves=tuple(p for p in discovered.leaves if real(p) not in entry_scripts)
        )
    internal: list[Notice] = []
    checker = ConfigChecker(request.cli_target, request.select, request.ignore, loader)
    jobs, candidates = _jobs(discovered, indexes)
    outcomes = _outcomes(jobs, checker, cache, progress)
    taken = _taken(discovered, outcomes, candidates, checker, aggregator, internal)
    found_leaves = set(discovered.leaves)

    no_target: dict[str, Path] = {}

    def target_for(config: Path, named: bool) -> Target:
        try:
            return checker.target_for(config, named)
        except NoTargetError as error:
            no_target[str(error)] = config
            raise

    launch_checker = LaunchChecker(loader, aggregator, target_for, checker.rules_for, NEUTRAL_HOST)
    named_files = {real(path) for path in discovered.named}
    launched = check_launches(
        launch_checker,
        launchers.relevant(taken, named_files),
        [path for path, outcome in taken.items() if not outcome.fragment],
        lambda config: request.entries or settings_entries(settings_for_file(config)),
        lambda config: config in found_leaves,
    )
    errors.extend(n for n in launched.notices if n.kind is NoticeKind.ERROR)
    internal.extend(n for n in launched.notices if n.kind is NoticeKind.INTERNAL)
    # What stopped a launch short of the Runner is reported; a config launched is checked as
    # launched, not again on its own.
    alone = {path: outcome for path, outcome in taken.items() if path not in launched.covered}
    target_of: dict[Path, str] = dict(launched.targets)
    for leaf, outcome in alone.items():
        if outcome.fragment:
            continue
        if outcome.target_error is not None:
            errors.append(outcome.target_error)
            if outcome.no_target:
                no_target[outcome.target_error.message] = leaf
            continue
        assert outcome.target is not None
        target_of[leaf] = outcome.target
        if outcome.check_internal is not None:
            internal.append(crash_log.report(outcome.check_internal))
            continue
        aggregator.add_outcome(outcome)

    noqa = NoqaIndex()
    kept = []
    for violation in aggregator.violations():
        settings = settings_for(violation.configs[0] if violation.configs else violation.path)
        if not selection(settings, request.select, request.ignore).wants(
            violation.code, violation.needed_by
        ):
            continue
        if noqa.suppressed(
            violation.path, violation.span.line, violation.code, violation.needed_by
        ):
            continue
        if violation.code in WARNING_CODES:
            violation = replace(violation, severity="warning")
        kept.append(violation)
    warnings = [
        *noqa.notices,
        *(n for n in launched.notices if n.kind is NoticeKind.WARNING),
        *_unreadable_folders(indexes),
    ]
    skipped = [path for path in discovered.skipped if real(path) not in entry_scripts]
    if skipped:
        count = len(skipped)
        warnings.append(
            Notice.warning(
                f"skipped {count} .py file{'s' if count > 1 else ''} that do not look like "
                "MMEngine configs (code, or no config keys); name a file to check it anyway, or "
                "set `include` under [tool.cfglint]"
            )
        )
    facts = {path: ConfigFacts(outcome.files, outcome.fragment) for path, outcome in alone.items()}
    facts.update(
        (path, ConfigFacts(config.files, is_fragment(config), config.overlay))
        for path, config in launched.launched.items()
    )
    nothing_found = not (discovered.leaves or discovered.bases or discovered.launchers)
    if nothing_found and not discovered.problems:
        warnings.append(Notice.warning("no config files found under the given paths"))
    elif facts and not target_of and not errors:
        warnings.append(
            Notice.warning(
                "no launchable config checked: every config found lacks `model` (a fragment is "
                "checked through the configs that inherit it)"
            )
        )
    return CheckResult(
        tuple(kept),
        once([*_no_target_once(errors, no_target), *internal, *warnings]),
        ResolvedTrees(list(facts), launched.launched, loader),
        target_of,
        tuple(launched.views),
        facts,
        aggregator.leaf_fixes(),
        aggregator.leaf_overrides(),
    )


NEUTRAL_HOST = HostFacts(mmengine_device="cpu", cuda=False)


def _no_target_once(errors: list[Notice], no_target: Mapping[str, Path]) -> list[Notice]:
    """The errors, each once, with the configs that have no target told in one line (about no
    config in particular). `no_target`: the config of each such error, by its message."""
    each = list(once(errors))
    if len(no_target) < 2:
        return each
    configs = sorted(display_path(path) for path in no_target.values())
    shown = ", ".join(configs[:3]) + (f" and {len(configs) - 3} more" if len(configs) > 3 else "")
    first = next(index for index, error in enumerate(each) if error.message in no_target)
    rest = [error for error in each if error.message not in no_target]
    rest.insert(
        first,
        Notice.error(f"no target for {len(configs)} configs ({shown}): {HOW_TO_SET_A_TARGET}"),
    )
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


def _unreadable_folders(indexes: InheritanceIndexes) -> list[Notice]:
    """A folder of the project that could not be listed may hold configs inheriting a named
    file: they were not checked, and fixes placed in shared files did not count them."""
    return [
        Notice.warning(
            f"cannot read folder {display_path(folder)}: {reason}; configs in it that may "
            "inherit the files named were not checked",
            folder,
        )
        for folder, reason in sorted(indexes.unreadable_folders().items())
    ]
