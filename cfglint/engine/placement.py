"""Where a fix goes: the file that sets the value, or an override in each leaf config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cfglint.discover import leaves_under
from cfglint.engine.run import CheckResult, is_fragment
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.settings import FixPlacement, settings_for, target_name_for
from cfglint.types import KeyChange, ResolvedConfig, Violation

Placement = list[tuple[Path, tuple[KeyChange, ...]]]


@dataclass(frozen=True, slots=True)
class _ProjectConfig:
    files: frozenset[Path]
    target: str | None  # None: no target can be found, so it never "shares" one


class Placer:
    """Decides placements for one check result.

    A shared base is edited only when every config that inherits it has the violation's
    target: the checked ones, and, where the project has settings, every other config under the
    project root too (a CUDA config that shares the base must never change because only the
    T20 configs were named on the command line).
    """

    def __init__(self, result: CheckResult, mode: FixPlacement, cli_target: str | None) -> None:
        self._result = result
        self._mode = mode
        self._cli_target = cli_target
        self._projects: dict[Path, list[_ProjectConfig]] = {}

    def candidates(self, violation: Violation) -> list[Placement]:
        """Candidate placements, best first."""
        intent = violation.fix_intent
        assert intent is not None
        origin = violation.path
        at_origin: Placement = [(origin, intent.changes)]
        in_leaves: Placement = [(leaf, intent.changes) for leaf in violation.configs]
        if origin in violation.configs or self._mode == "origin":
            return [at_origin]
        if self._mode == "leaf":
            return [in_leaves]
        if self._inheritor_targets(origin) <= {violation.target}:
            return [at_origin, in_leaves]
        return [in_leaves]

    def _inheritor_targets(self, base: Path) -> set[str | None]:
        result = self._result
        targets: set[str | None] = {
            result.targets[leaf] for leaf in result.targets if base in result.resolved[leaf].files
        }
        settings = settings_for(base)
        if settings.source is not None:
            for config in self._project(settings.root):
                if base in config.files:
                    targets.add(config.target)
        return targets

    def _project(self, root: Path) -> list[_ProjectConfig]:
        if root not in self._projects:
            loader = Loader()
            configs = []
            for leaf in leaves_under(root):
                if leaf in self._result.targets:
                    continue
                loaded = loader.load(leaf)
                if not isinstance(loaded, ResolvedConfig) or is_fragment(loaded):
                    continue
                try:
                    target: str | None = target_name_for(leaf, self._cli_target)
                except UserError:
                    target = None
                configs.append(_ProjectConfig(frozenset(loaded.files), target))
            self._projects[root] = configs
        return self._projects[root]
