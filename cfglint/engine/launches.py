"""Check configs as their launches run them: entry script and launcher included (docs/launches.md).

A launch comes from a shell launcher named or found under the paths (each line that starts an
entry script), from `--entry SCRIPT` on the command line, or from `entry-points` in the settings
(each config found is then checked as launched by each of them). The launch view
(launch/explore.py) gives every path through the entry script; the rules run on each path's
config as the Runner gets it, and on what the script does on the way.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from cfglint.codes import MMENGINE_REFUSES, UNKNOWN_VALUE
from cfglint.crash_log import internal_error
from cfglint.discover import LAUNCHER_SUFFIX
from cfglint.engine.aggregate import Aggregator
from cfglint.engine.evaluate import evaluate_view
from cfglint.engine.inheritors import InheritanceIndexes, project_root, real
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.paths import display_path, suffix_of
from cfglint.rules.base import Rule
from cfglint.settings import Settings, settings_for
from cfglint.targets import Target
from cfglint.types import (
    HostFacts,
    Launch,
    LauncherFile,
    LaunchView,
    LoadProblem,
    Notice,
    ResolvedConfig,
)

CONFIG_PLACEHOLDER = "{config}"


@dataclass(frozen=True, slots=True)
class EntrySpec:
    """An entry script and what it gets besides the config (`--entry`, `entry-points`)."""

    script: Path
    arguments: tuple[str, ...]  # `{config}` marks where the config goes; else it comes first
    cwd: Path

    def launch_of(self, config: Path) -> Launch:
        words = [str(config), *self.arguments]
        if any(CONFIG_PLACEHOLDER in word for word in self.arguments):
            words = [word.replace(CONFIG_PLACEHOLDER, str(config)) for word in self.arguments]
        return Launch(self.script, tuple(words), self.cwd, "python")


def entry_spec(script: Path, arguments: str, cwd: Path) -> EntrySpec:
    """`--entry SCRIPT --entry-args "..."` (the arguments as a shell would split them)."""
    try:
        words = tuple(shlex.split(arguments))
    except ValueError as error:
        raise UserError(f"--entry-args: {error}") from None
    absolute = script if script.is_absolute() else cwd / script
    return EntrySpec(Path(os.path.abspath(absolute)), words, cwd)


def settings_entries(settings: Settings) -> tuple[EntrySpec, ...]:
    """`entry-points = ["tools/train.py --launcher pytorch", ...]`, relative to the settings."""
    specs = []
    for text in settings.table.entry_points:
        try:
            words = shlex.split(text)
        except ValueError as error:
            raise UserError(f"{settings.source}: [tool.cfglint] entry-points: {error}") from None
        if not words:
            raise UserError(f"{settings.source}: [tool.cfglint] entry-points: an empty entry")
        script = Path(os.path.abspath(settings.root / words[0]))
        specs.append(EntrySpec(script, tuple(words[1:]), settings.root))
    return tuple(specs)


def config_in_arguments(launch: Launch) -> Path | None:
    """The first argument naming an existing config file: the config the launch most likely
    loads (the view says for sure), to pick the target whose host the script runs on."""
    for index, word in enumerate(launch.arguments):
        if index in launch.unresolved or not word.endswith(CONFIG_SUFFIXES):
            continue
        path = Path(word) if os.path.isabs(word) else launch.cwd / word
        if path.is_file():
            return Path(os.path.abspath(path))
    return None


TargetFor = Callable[[Path, bool], Target]


@dataclass
class LaunchOutcome:
    view: LaunchView
    target: Target | None
    # The config as the first path hands it to the Runner (None: no path reaches one).
    resolved: ResolvedConfig | None
    error: Notice | None = None  # why the launch's config has no target


class LaunchChecker:
    """Checks launches one by one into an aggregator."""

    def __init__(
        self,
        loader: Loader,
        aggregator: Aggregator,
        target_for: TargetFor,
        rules_for: Callable[[Path], Sequence[Rule]],
        neutral: HostFacts,
    ) -> None:
        self._loader = loader
        self.aggregator = aggregator
        self._target_for = target_for
        self._rules_for = rules_for
        self._neutral = neutral  # the host assumed while the launch's config is not known

    def check(self, launch: Launch, config: Path | None, named: bool) -> LaunchOutcome:
        # The entry script's interpreter is imported only for a check that has launches.
        from cfglint.launch.explore import explore

        guess = config or config_in_arguments(launch)
        target, error = self._target(guess, named)
        host = target.host if target is not None else self._neutral
        view = explore(launch, host, self._loader, config=config)
        if view.config is not None and view.config != guess:
            target, error = self._target(view.config, named)
            if target is not None:
                view = explore(launch, target.host, self._loader, config=config)
        where = view.config or launch.entry
        if view.problems:
            self.aggregator.add_problems(where, view.problems)
        stops = (*_stops(view), *_unknown_configs(view))
        if stops:
            self.aggregator.add_problems(where, stops)
        resolved = next((w.config for w in view.worlds if w.config is not None), None)
        if target is None or view.config is None or resolved is None:
            return LaunchOutcome(view, target, resolved, error)
        findings = evaluate_view(view, target, self._rules_for(view.config))
        self.aggregator.add_findings(view.config, target.name, findings)
        return LaunchOutcome(view, target, resolved)

    def _target(self, config: Path | None, named: bool) -> tuple[Target | None, Notice | None]:
        if config is None:
            return None, None
        try:
            return self._target_for(config, named), None
        except UserError as error:
            return None, Notice.error(str(error), config)


def _unknown_configs(view: LaunchView) -> tuple[LoadProblem, ...]:
    """A path that hands the Runner a config cfglint cannot evaluate (code it does not follow
    may have changed any key): nothing on it can be checked, and the run says so."""
    problems: dict[object, LoadProblem] = {}
    for world in view.worlds:
        unknown = world.unknown_config
        if unknown is None:
            continue
        span = next(
            (event.span for event in world.events if event.kind == "runner"), unknown.origin.span
        )
        first = unknown.source.strip().splitlines()[0] if unknown.source.strip() else "?"
        code = (
            first
            if len(first) <= 60 and "\n" not in unknown.source.strip()
            else f"{first[:60]} ..."
        )
        message = (
            f"the config this launch hands to the Runner cannot be evaluated statically "
            f"(`{code}` at line {unknown.origin.span.line}: {unknown.reason}): the launch is not "
            "checked"
        )
        problems.setdefault(span, LoadProblem(UNKNOWN_VALUE, message, span))
    return tuple(problems.values())


def _stops(view: LaunchView) -> tuple[LoadProblem, ...]:
    """When no path reaches the Runner because the script stops on the way (it raises, or
    argparse rejects the launch's words), the launch fails there: one problem per place."""
    if any(world.config is not None or world.unknown_config for world in view.worlds):
        return ()
    problems: dict[object, LoadProblem] = {}
    for world in view.worlds:
        if world.ending is None or world.ending_span is None or "exits" in world.ending:
            continue
        message = f"the launch stops before the Runner: {world.ending}"
        problems.setdefault(
            world.ending_span, LoadProblem(MMENGINE_REFUSES, message, world.ending_span)
        )
    return tuple(problems.values())


@dataclass(frozen=True, slots=True)
class ProjectLaunchers:
    """The launchers of the projects being checked, read before any config is loaded."""

    named: tuple[LauncherFile, ...]  # named or found under the paths: every launch is checked
    # The other launchers of the projects: a launch of theirs is checked when it starts a
    # config being checked, or an entry script named on the command line.
    others: tuple[LauncherFile, ...]

    def entry_scripts(self) -> set[Path]:
        return {
            real(launch.entry)
            for launcher in (*self.named, *self.others)
            for launch in launcher.launches
        }

    def relevant(self, checked: Iterable[Path], named: set[Path]) -> list[LauncherFile]:
        """The launchers to check, each with the launches that concern this check (`checked`:
        the configs checked, resolved only when a launcher not named might launch one)."""
        chosen = list(self.named)
        if not self.others:
            return chosen
        configs = {real(path) for path in checked}
        for launcher in self.others:
            launches = tuple(
                launch
                for launch in launcher.launches
                if real(launch.entry) in named or _guess(launch) in configs
            )
            if launches:
                chosen.append(replace(launcher, launches=launches, problems=()))
        return chosen


def read_launchers(
    paths: Sequence[Path], launchers: Sequence[Path], indexes: InheritanceIndexes
) -> ProjectLaunchers:
    """The launchers named or found, each read from its project's root (where it is run from),
    and every other launcher of the projects the paths are in: a config is checked as the
    project launches it, however it was named (a folder, a file, pre-commit's changed files).
    The projects' files are walked once for this and the inheritance indexes (`indexes`)."""
    named = [_read_launcher(path, project_root(path)) for path in launchers]
    seen = {real(path) for path in launchers}
    others: list[LauncherFile] = []
    for root in dict.fromkeys(project_root(path) for path in paths):
        for found in indexes.walk(root).paths:
            if suffix_of(found) != LAUNCHER_SUFFIX:
                continue
            path = Path(found)
            if real(path) not in seen:
                seen.add(real(path))
                others.append(_read_launcher(path, root))
    return ProjectLaunchers(tuple(named), tuple(others))


def _read_launcher(path: Path, cwd: Path) -> LauncherFile:
    # The shell simulator is imported only for a project that has launchers.
    from cfglint.launch.shell import read_launcher

    return read_launcher(path, cwd=cwd)


def project_entry_scripts(root: Path) -> set[Path]:
    """The entry scripts a project launches configs with (by real path): those its launchers
    start and its settings' `entry-points` name."""
    scripts = read_launchers((root,), (), InheritanceIndexes()).entry_scripts()
    with contextlib.suppress(UserError):  # a broken setting is reported by the check itself
        scripts.update(real(spec.script) for spec in settings_entries(settings_for(root)))
    return scripts


def _guess(launch: Launch) -> Path | None:
    found = config_in_arguments(launch)
    return None if found is None else real(found)


@dataclass
class LaunchResults:
    """What checking the launches gave, for the rest of the check."""

    views: list[LaunchView] = field(default_factory=list)
    # The config as the first launch of it hands it to the Runner, and its target.
    launched: dict[Path, ResolvedConfig] = field(default_factory=dict)
    targets: dict[Path, str] = field(default_factory=dict)
    # Every config checked through a launch (whether a path reached the Runner or not): it is
    # not checked again on its own.
    covered: set[Path] = field(default_factory=set)
    # Configs without a target, launches not checked, cfglint's own failures (one per launch).
    notices: list[Notice] = field(default_factory=list)

    def take(self, config: Path, outcome: LaunchOutcome) -> None:
        self.views.append(outcome.view)
        self.covered.add(config)
        if outcome.error is not None:
            self.notices.append(outcome.error)
        if outcome.resolved is not None and outcome.target is not None:
            self.launched.setdefault(config, outcome.resolved)
            self.targets.setdefault(config, outcome.target.name)


def check_launches(
    checker: LaunchChecker,
    launchers: Sequence[LauncherFile],
    configs: Iterable[Path],
    entries_for: Callable[[Path], Sequence[EntrySpec]],
    named: Callable[[Path], bool],
) -> LaunchResults:
    """The shell launchers' launches first (their configs are checked as launched there), then
    every other config that can be launched (`configs`: those with a `model`) as each entry
    point (`--entry`, `entry-points`) launches it."""
    results = LaunchResults()
    for launcher in launchers:
        if launcher.problems:
            checker.aggregator.add_problems(launcher.path, launcher.problems)
        for launch in launcher.launches:
            outcome = _checked(checker, launch, None, True, results)
            if outcome is None:
                continue
            config = outcome.view.config
            if config is None:
                results.views.append(outcome.view)
                results.notices.append(_not_checked(launch, outcome.view))
                continue
            results.take(config, outcome)
    for config in configs:
        if config in results.covered:
            continue
        for spec in entries_for(config):
            outcome = _checked(checker, spec.launch_of(config), config, named(config), results)
            if outcome is not None:
                results.take(config, outcome)
    return results


def _checked(
    checker: LaunchChecker,
    launch: Launch,
    config: Path | None,
    named: bool,
    results: LaunchResults,
) -> LaunchOutcome | None:
    """One launch checked; a bug of cfglint's in it is an internal error for that launch only."""
    try:
        return checker.check(launch, config, named)
    except Exception as error:
        results.notices.append(internal_error(error, launch.entry))
        return None


def _not_checked(launch: Launch, view: LaunchView) -> Notice:
    endings = [world.ending for world in view.worlds if world.ending]
    why = endings[0] if endings else "its config is not known statically"
    message = f"launch of {display_path(launch.entry)} not checked: {why}"
    if launch.source is None:
        return Notice.warning(f"{display_path(launch.entry)}: {message}", launch.entry)
    source = launch.source
    where = f"{display_path(source.path)}:{source.line}"
    return Notice.warning(f"{where}: {message}", source.path, source.line)
