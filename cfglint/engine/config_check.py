"""Check one config on its own: resolve it, find its target, run the rules it selects, and keep
what the rest of the check needs (engine/outcome.py) instead of the tree.

The same code runs in this process or in a worker process (engine/pool.py), one Loader per
process, so that shared bases are resolved once there.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfglint import files
from cfglint.crash_log import caught
from cfglint.engine.evaluate import evaluate
from cfglint.engine.leaf_override import LeafOverrides
from cfglint.engine.outcome import ConfigOutcome, issue_of
from cfglint.engine.selection import Selection
from cfglint.errors import NoTargetError, UserError
from cfglint.loader import Loader
from cfglint.paths import absolute_path
from cfglint.rules import CHECK_RULES
from cfglint.rules.base import Finding, Rule
from cfglint.session import per_session
from cfglint.settings import Settings, declared_choice, settings_for_file, target_choice
from cfglint.targets import Target, TargetRegistry
from cfglint.targets.registry import unknown_target
from cfglint.types import LeafOverride, LoadFailure, LoadResult, Notice, ResolvedConfig


class Registries:
    """One target registry per settings file, so each project's `extra-targets` are honoured;
    and through them, each config's target."""

    def __init__(self) -> None:
        # A broken extra-target file is read once: its error stands in for the registry.
        self._registries: dict[Path | None, TargetRegistry | str] = {}
        # The target files each registry read (for the result cache: a config's result depends
        # on every target its registry knows, e.g. through the libraries other hosts have).
        self._reads: dict[Path | None, tuple[files.Read, ...]] = {}

    def registry_for(self, settings: Settings) -> TargetRegistry:
        """The registry of the project these settings govern (a UserError: a target file is
        broken)."""
        if settings.source not in self._registries:
            reads: list[files.Read] = []
            with files.observed(reads.append):
                try:
                    self._registries[settings.source] = TargetRegistry(settings.extra_targets)
                except UserError as error:
                    self._registries[settings.source] = str(error)
            self._reads[settings.source] = tuple(reads)
        registry = self._registries[settings.source]
        if isinstance(registry, str):
            raise UserError(registry)
        return registry

    def reads(self, settings: Settings) -> tuple[files.Read, ...]:
        """The target files read for these settings' registry (none before it is asked for)."""
        return self._reads.get(settings.source, ())

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


def selection(
    settings: Settings, select: tuple[str, ...] | None, ignore: tuple[str, ...]
) -> Selection:
    """The rules a run selects for configs under these settings: the command line's `--select`
    beats the settings' `select`, and both `ignore`s add up."""
    return Selection(select or settings.table.select or ("ALL",), (*settings.table.ignore, *ignore))


@per_session
def _extra_reads() -> dict[Path, files.Read]:
    """What resolutions read besides their own files: the metafiles `pkg::` bases are looked up
    in (loader/bases.py), read once per command (it remembers them), so kept per command too."""
    return {}


def _package_of(path: Path) -> Path | None:
    """The installed package a metafile (`<package>/.mim/...`) belongs to."""
    for folder in path.parents:
        if folder.name == ".mim":
            return folder.parent
    return None


class ConfigChecker:
    """Checks configs one by one with one Loader."""

    def __init__(
        self,
        cli_target: str | None,
        select: tuple[str, ...] | None,
        ignore: tuple[str, ...],
        loader: Loader,
    ) -> None:
        self.cli_target = cli_target
        self._select = select
        self._ignore = ignore
        self.loader = loader
        self.registries = Registries()
        self._overrides = LeafOverrides(loader)
        self._rules: dict[Path | None, tuple[Rule, ...]] = {}

    def rules_for(self, config: Path) -> tuple[Rule, ...]:
        # A rule that is not selected does not run, so it asks for no value (no CL906 for it).
        settings = settings_for_file(config)
        rules = self._rules.get(settings.source)
        if rules is None:  # the same for every config under one settings file
            chosen = selection(settings, self._select, self._ignore)
            rules = self._rules[settings.source] = tuple(
                rule for rule in CHECK_RULES if chosen.wants(rule.code)
            )
        return rules

    def target_for(self, config: Path, named: bool) -> Target:
        """The config's target (a UserError, or a NoTargetError when it names none)."""
        settings = settings_for_file(config)
        return self.registries.for_config(config, self.cli_target, settings, named=named)

    def load(self, path: Path) -> LoadResult:
        reads: list[files.Read] = []
        with files.observed(reads.append):
            result = self.loader.load(path)
        if reads:  # most bases are read already, by an earlier config's load
            own = {absolute_path(file) for file in result.files}
            for read in reads:
                absolute = absolute_path(read.path)
                if absolute not in own:
                    _extra_reads().setdefault(Path(absolute), read)
        return result

    @staticmethod
    def extra_reads(config_files: Sequence[Path]) -> tuple[files.Read, ...]:
        """What a config read besides its own files: the metafiles of the packages its `pkg::`
        bases are in (those holding one of its files), and anything else read that way."""
        folders = {folder for file in config_files for folder in Path(file).parents}
        return tuple(
            read
            for path, read in _extra_reads().items()
            if (package := _package_of(path)) is None or package in folders
        )

    def check(self, path: Path, named: bool) -> ConfigOutcome:
        """`named`: found or named on the command line (`--target` is for those)."""
        result = self.load(path)
        if isinstance(result, LoadFailure):
            return ConfigOutcome(
                path, result.files, False, result.problems, load_internal=result.internal
            )
        keys = frozenset(map(str, result.root.entries))
        if "model" not in result.root.entries:
            return ConfigOutcome(path, result.files, True, fragment=True, keys=keys)
        try:
            target = self.target_for(path, named)
        except UserError as error:
            return ConfigOutcome(
                path,
                result.files,
                True,
                keys=keys,
                target_error=Notice.error(str(error), path),
                no_target=isinstance(error, NoTargetError),
            )
        try:
            findings = list(evaluate(result, target, self.rules_for(path)))
        except Exception as error:  # a bug for this config must not stop the others
            return ConfigOutcome(
                path,
                result.files,
                True,
                check_internal=caught(error, path),
                keys=keys,
                target=target.name,
            )
        issues = tuple(
            issue_of(finding, self._leaf_override(result, finding)) for finding in findings
        )
        return ConfigOutcome(path, result.files, True, keys=keys, target=target.name, issues=issues)

    def _leaf_override(self, config: ResolvedConfig, finding: Finding) -> LeafOverride | None:
        intent = finding.fix
        if intent is None or intent.placed_in is not None:
            return None
        try:
            return self._overrides.override(config, intent)
        except Exception:  # not placeable there; fix placement decides, and reports, why
            return None
