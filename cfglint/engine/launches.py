"""Check configs as their launches run them: entry script and launcher included (docs/launches.md).

A launch comes from a shell launcher named or found under the paths (each line that starts an
entry script), from `--entry SCRIPT` on the command line, or from `entry-points` in the settings
(each config found is then checked as launched by each of them). The launch view
(launch/explore.py) gives every path through the entry script; the rules run on each path's
config as the Runner gets it, and on what the script does on the way.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.engine.aggregate import Aggregator
from cfglint.engine.evaluate import evaluate_view
from cfglint.errors import UserError
from cfglint.launch.explore import explore
from cfglint.loader import Loader
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.rules.base import Rule
from cfglint.settings import Settings, settings_for
from cfglint.targets import Target
from cfglint.types import HostFacts, Launch, LaunchView, LoadProblem, ResolvedConfig

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
    error: str | None = None  # why the launch's config has no target


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
        self._aggregator = aggregator
        self._target_for = target_for
        self._rules_for = rules_for
        self._neutral = neutral  # the host assumed while the launch's config is not known

    def check(self, launch: Launch, config: Path | None, named: bool) -> LaunchOutcome:
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
            self._aggregator.add_problems(where, view.problems)
        stops = _stops(view)
        if stops:
            self._aggregator.add_problems(where, stops)
        resolved = next((w.config for w in view.worlds if w.config is not None), None)
        if target is None or view.config is None or resolved is None:
            return LaunchOutcome(view, target, resolved, error)
        findings = evaluate_view(view, target, self._rules_for(view.config))
        self._aggregator.add_findings(view.config, target.name, findings)
        return LaunchOutcome(view, target, resolved)

    def _target(self, config: Path | None, named: bool) -> tuple[Target | None, str | None]:
        if config is None:
            return None, None
        try:
            return self._target_for(config, named), None
        except UserError as error:
            return None, str(error)


def _stops(view: LaunchView) -> tuple[LoadProblem, ...]:
    """When no path reaches the Runner because the script stops on the way (it raises, or
    argparse rejects the launch's words), the launch fails there: one problem per place."""
    if any(world.config is not None for world in view.worlds):
        return ()
    problems: dict[object, LoadProblem] = {}
    for world in view.worlds:
        if world.ending is None or world.ending_span is None or "exits" in world.ending:
            continue
        message = f"the launch stops before the Runner: {world.ending}"
        problems.setdefault(world.ending_span, LoadProblem("CL905", message, world.ending_span))
    return tuple(problems.values())


def launcher_files(paths: Sequence[Path]) -> list[Path]:
    return [path for path in paths if path.suffix == ".sh"]


def settings_entry_specs(config: Path) -> tuple[EntrySpec, ...]:
    return settings_entries(settings_for(config))
