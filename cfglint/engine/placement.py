"""Where a fix goes: where the value is written, or an override in each leaf config.

`auto` edits the file that writes the value (a shared `_base_` file, often) when that file belongs
to the project and every config of the project inheriting it has the violation's target;
otherwise each leaf config gets an override that MMEngine merges over its bases. `origin` always
edits where the value is written (refusing a value two inheriting targets need differently);
`leaf` always writes overrides. The fix loop (fixes.py) verifies each placement afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cfglint.engine.config_check import Registries
from cfglint.engine.fix_marks import leaf_placeable
from cfglint.engine.leaf_override import LeafOverrides, NotPlaceable
from cfglint.engine.project_index import ProjectConfig, ProjectIndex, real
from cfglint.engine.run import CheckResult
from cfglint.engine.verify import dotted
from cfglint.errors import UserError
from cfglint.fix import unwritable_reason
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.settings import FixPlacement, settings_for
from cfglint.types import (
    REMOVE,
    ConfigNode,
    DictNode,
    FixIntent,
    KeyChange,
    Notice,
    ResolvedConfig,
    ResolvedKeys,
    SpanChange,
    TextEdit,
    UnknownNode,
    Violation,
)

PlacementKind = Literal["origin", "leaf"]


@dataclass(frozen=True, slots=True)
class FileChanges:
    """Changes for one file: keys from its top level, changes at values it writes, and text
    edits a code fix placed itself (a line inserted in an entry script)."""

    path: Path
    changes: tuple[KeyChange, ...] = ()
    anchored: tuple[SpanChange, ...] = ()
    edits: tuple[TextEdit, ...] = ()
    # For an override in a lazy-import config: which keys on the way to ``changes`` the config
    # resolves to now (the fixer writes into what exists and cannot look it up itself).
    # None: not known, and then the fixer adds no top-level name to a lazy-import config.
    resolved: ResolvedKeys | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    kind: PlacementKind
    files: tuple[FileChanges, ...]
    # Placed through the config the check keeps for the leaf (its first launch's first path);
    # False: through another path of a launch, which the fix loop does not resolve again, so
    # only the final check tells whether the fix took.
    primary: bool = True


@dataclass
class Candidates:
    """Placements for one violation, best first, and why others were left out."""

    placements: list[Placement] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    # The fix is for a file this run cannot write: an error each, and exit code 2.
    errors: list[Notice] = field(default_factory=list)
    # Configs of two targets need different values where the value is written (origin mode):
    # a warning.
    conflict: Notice | None = None


class Placer:
    """Placements for the violations of one check result."""

    def __init__(
        self, result: CheckResult, index: ProjectIndex, mode: FixPlacement, *, writing: bool
    ) -> None:
        self._result = result
        self._index = index
        self._mode = mode
        self._writing = writing
        self._registries = Registries()
        self._overrides = LeafOverrides(Loader())

    def candidates(self, violation: Violation) -> Candidates:
        found = Candidates()
        intent = violation.fix_intent
        if intent is not None and intent.placed_in is not None:
            # A fix of code is placed already, in the file the code is in.
            try:
                found.placements.append(self._in_code(intent.placed_in, intent))
            except NotPlaceable as error:
                found.reasons.append(str(error))
            return found
        at_origin: Placement | None = None
        if self._mode != "leaf":
            try:
                at_origin = self._at_origin(violation, found)
            except NotPlaceable as error:
                found.reasons.append(str(error))
        if found.conflict is not None:
            return found
        if at_origin is not None:
            found.placements.append(at_origin)
        try:
            found.placements.append(self._in_leaves(violation, found))
        except NotPlaceable as error:
            found.reasons.append(str(error))
        return found

    def placeable(self, violation: Violation) -> bool:
        """Whether some placement exists (a leaf override first: it needs no project walk)."""
        if leaf_placeable(self._result, violation, self._mode):
            return True  # known from each config's own check
        intent = violation.fix_intent
        if self._mode == "origin" or (intent is not None and intent.placed_in is not None):
            candidates = self.candidates(violation)
            return bool(candidates.placements) and candidates.conflict is None
        found = Candidates()
        try:
            self._in_leaves(violation, found)
            return True
        except NotPlaceable:
            pass
        if self._mode == "leaf":
            return False
        try:
            self._at_origin(violation, found)
        except NotPlaceable:
            return False
        return found.conflict is None

    def other_targets(self, file: Path, target: str | None) -> list[ProjectConfig]:
        """Configs inheriting ``file`` whose target is not ``target`` (or unknown)."""
        return [
            config
            for config in self._index.inheritors(file)
            if config.target is None or config.target != target
        ]

    def _in_code(self, path: Path, intent: FixIntent) -> Placement:
        reason = self._index.not_editable(path)
        if reason is not None:
            raise NotPlaceable(f"{display_path(path)} is not edited: {reason}")
        return Placement("origin", (FileChanges(path, (), intent.anchored, intent.edits),))

    # -- where the value is written --------------------------------------------------------

    def _at_origin(self, violation: Violation, found: Candidates) -> Placement:
        intent = violation.fix_intent
        assert intent is not None
        config, primary = self._resolved(violation)
        # A key no file writes goes where the check reported it: a base the configs lacking it
        # share (engine/grouping.py), or the config itself.
        site = violation.span.path
        if real(site) not in {real(path) for path in config.files}:
            site = config.path
        files: dict[Path, FileChanges] = {}
        for change in intent.changes:
            for path, placed in _locate(config, change.key, change.value, site):
                entry = files.setdefault(real(path), FileChanges(path))
                if isinstance(placed, SpanChange):
                    entry = FileChanges(entry.path, entry.changes, (*entry.anchored, placed))
                else:
                    entry = FileChanges(entry.path, (*entry.changes, placed), entry.anchored)
                files[real(path)] = entry
        if not files:
            raise NotPlaceable("nothing to change where the value is written")
        for entry in files.values():
            self._check_origin_file(entry.path, violation, found)
            if entry.changes and real(entry.path) != real(config.path):
                self._check_shared_site(entry.path, entry.changes, violation)
        return Placement("origin", tuple(files.values()), primary)

    def _check_shared_site(
        self, path: Path, changes: tuple[KeyChange, ...], violation: Violation
    ) -> None:
        """A key added to a base reaches every config reading it: each must lack the key (a
        config setting it would get a merged value) or be one the fix is for."""
        members = {real(config) for config in violation.configs}
        tops = {change.key[:1] for change in changes}
        for config in self._index.inheritors(path):
            if real(config.path) in members:
                continue
            resolved: object = (
                self._result.resolved.get(config.path)
                if config.checked
                else self._index.load(config.path)
            )
            shown = display_path(path)
            if not isinstance(resolved, ResolvedConfig):
                raise NotPlaceable(f"{shown} is not edited: {display_path(config.path)} reads it")
            for top in tops:
                if resolved.get(top) is not None:
                    raise NotPlaceable(
                        f"{shown} is not edited: {display_path(config.path)} reads it and sets "
                        f"`{dotted(top)}` itself"
                    )

    def _check_origin_file(self, path: Path, violation: Violation, found: Candidates) -> None:
        shown = display_path(path)
        reason = self._index.not_editable(path)
        if reason is not None:
            raise NotPlaceable(f"{shown} is not edited: {reason}")
        others = self.other_targets(path, violation.target)
        if not others:
            return
        if self._mode == "auto":
            raise NotPlaceable(f"{shown} is not edited: configs for other targets inherit it")
        conflict = self._conflicting(others, violation)
        if conflict is not None:
            found.conflict = Notice.warning(
                f"{shown}: `{violation.key}` is not changed: configs for {violation.target} and "
                f"{conflict.target} inherit it and need different values "
                f"(e.g. {display_path(conflict.path)}); fix them with --fix-placement leaf",
                path,
            )
            raise NotPlaceable(found.conflict.message)

    def _conflicting(
        self, others: list[ProjectConfig], violation: Violation
    ) -> ProjectConfig | None:
        """An inheritor of another target that the value this fix writes would break."""
        intent = violation.fix_intent
        assert intent is not None
        for config in others:
            if config.target is None:
                continue
            try:
                registry = self._registries.registry_for(settings_for(config.path))
                policies = registry.get(config.target).keys
            except UserError:
                continue
            for change in intent.changes:
                policy = policies.get(dotted(change.key))
                if policy is None:
                    continue
                if change.value is REMOVE:
                    ok = not policy.required and (
                        not policy.has_default or policy.value_ok(policy.default)
                    )
                else:
                    ok = policy.value_ok(change.value)
                if not ok:
                    return config
        return None

    # -- an override in each leaf ----------------------------------------------------------

    def _in_leaves(self, violation: Violation, found: Candidates) -> Placement:
        intent = violation.fix_intent
        assert intent is not None
        files = []
        for leaf in violation.configs:
            if self._writing:
                reason = unwritable_reason(leaf)
                if reason is not None:
                    found.errors.append(
                        Notice.write_error(f"cannot write {display_path(leaf)}: {reason}", leaf)
                    )
                    raise NotPlaceable(f"cannot write {display_path(leaf)}")
            override = self._result.leaf_override(violation, leaf)
            if override is None:
                config = self._result.resolved.get(leaf)
                if config is None:
                    raise NotPlaceable(f"{display_path(leaf)} is not resolved")
                override = self._overrides.override(config, intent)
            files.append(FileChanges(leaf, override.changes, resolved=override.resolved))
        return Placement("leaf", tuple(files))

    def _resolved(self, violation: Violation) -> tuple[ResolvedConfig, bool]:
        """The config the violation was found in (for a launch: the path through the entry
        script that reaches its value), and whether it is the one the check keeps."""
        fallback: ResolvedConfig | None = None
        for leaf in violation.configs:
            config = self._result.resolved.get(leaf)
            if config is None:
                continue
            fallback = fallback or config
            if not config.overlay or _reaches(config, violation):
                return config, True
            for other in self._paths_of(leaf):
                if _reaches(other, violation):
                    return other, False
        if fallback is None:
            raise NotPlaceable("the config is not resolved")
        return fallback, True

    def _paths_of(self, leaf: Path) -> list[ResolvedConfig]:
        return [
            world.config
            for view in self._result.launches
            if view.config is not None and real(view.config) == real(leaf)
            for world in view.worlds
            if world.config is not None
        ]


def _reaches(config: ResolvedConfig, violation: Violation) -> bool:
    """Whether the violation's key leads, in this config, to the value it points at."""
    if violation.key is None:
        return True
    where = violation.span._replace(path=real(violation.span.path))
    parts = tuple(violation.key.split("."))
    for depth in range(1, len(parts) + 1):
        node = config.get(parts[:depth])
        if node is None:
            return False
        span = node.origin.span
        if span._replace(path=real(span.path)) == where:
            return True
    return False


Located = list[tuple[Path, KeyChange | SpanChange]]


def _locate(config: ResolvedConfig, key: tuple[str, ...], value: object, site: Path) -> Located:
    """Where each part of a change goes in the files the config reads: at the value written
    for the key, or in the deepest dict on its path that exists (adding the rest); a new
    top-level key goes to ``site``."""
    node: ConfigNode = config.root
    for depth, part in enumerate(key):
        if isinstance(node, UnknownNode):
            raise NotPlaceable(f"`{dotted(key[:depth])}` cannot be evaluated statically")
        if not isinstance(node, DictNode):
            raise NotPlaceable(f"`{dotted(key[:depth])}` is not a dict")
        child = node.entries.get(part)
        if child is None:
            if value is REMOVE:
                return []
            if depth == 0:
                return [(site, KeyChange(key, value))]
            return [_at(node, key, depth, value)]
        node = child
    if isinstance(node, UnknownNode):
        raise NotPlaceable(f"`{dotted(key)}` cannot be evaluated statically")
    if isinstance(node, DictNode) and isinstance(value, dict) and value:
        return [
            located
            for sub_key, sub_value in value.items()
            for located in _locate(config, (*key, str(sub_key)), sub_value, site)
        ]
    return [_at(node, key, len(key), value)]


def _at(
    node: ConfigNode, key: tuple[str, ...], depth: int, value: object
) -> tuple[Path, KeyChange | SpanChange]:
    """The change at ``node`` (written for ``key[:depth]``): by position in a .py file; by key
    path in YAML and JSON, where a value's key path in its file is its key in the config."""
    origin = node.origin
    if origin.env_dependent:
        raise NotPlaceable(f"`{dotted(key[:depth])}` comes from an environment placeholder")
    path = origin.span.path
    if path.suffix.lower() == ".py":
        return path, SpanChange(origin.span, key[depth:], value)
    return path, KeyChange(key, value)
