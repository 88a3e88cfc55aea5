"""A fix as an override in the config itself: the changes the config must write so that
MMEngine's merge over its bases gives the intended values, or why it cannot.

Fix placement (placement.py) uses it for its `leaf` placements; the check of each config
(config_check.py) asks it too, while the tree is at hand, so that a report's `[*]` marks need no
tree afterwards.
"""

from __future__ import annotations

from pathlib import Path

from cfglint.engine.inheritors import real
from cfglint.engine.verify import dotted
from cfglint.loader import Loader
from cfglint.loader.merge import DELETE_KEY
from cfglint.paths import display_path
from cfglint.types import (
    REMOVE,
    ConfigNode,
    DictNode,
    FixIntent,
    KeyChange,
    LeafOverride,
    ResolvedConfig,
    ResolvedKeys,
    UnknownNode,
    UnknownValueError,
    to_python,
)


class NotPlaceable(Exception):
    """Why one placement of a fix is impossible (one line)."""


class LeafOverrides:
    """Overrides for the configs one Loader resolves (it is asked which bases set a key)."""

    def __init__(self, loader: Loader) -> None:
        self._loader = loader
        self._base_keys: dict[tuple[Path, tuple[str, ...]], bool] = {}

    def changes(self, config: ResolvedConfig, intent: FixIntent) -> tuple[KeyChange, ...]:
        """What the config writes for the fix (NotPlaceable: it cannot)."""
        _refuse_overlay(config, intent)
        return tuple(
            adjusted for change in intent.changes for adjusted in self._leaf_changes(config, change)
        )

    def override(self, config: ResolvedConfig, intent: FixIntent) -> LeafOverride:
        """The changes, with the keys a lazy-import config resolves to on their way (its
        fixer writes into what exists and cannot look it up itself); NotPlaceable: none."""
        changes = self.changes(config, intent)
        return LeafOverride(changes, resolved_keys(config, changes) if config.lazy else None)

    def _leaf_changes(self, config: ResolvedConfig, change: KeyChange) -> list[KeyChange]:
        """The change as the leaf must write it to override what its bases set."""
        key, value = change.key, change.value
        if config.lazy:
            return _lazy_leaf_changes(config, change)
        if value is REMOVE:
            return self._leaf_removal(config, key)
        for depth in range(1, len(key) + 1):
            prefix = key[:depth]
            node = config.get(prefix)
            writes_dict = depth < len(key) or isinstance(value, dict)
            if node is None:
                break
            if isinstance(node, DictNode) or not writes_dict:
                continue
            if isinstance(node, UnknownNode):
                raise NotPlaceable(f"`{dotted(prefix)}` cannot be evaluated statically")
            # MMEngine refuses to merge a dict over a base value that is not a dict.
            if self._from_bases(config, prefix, node):
                if depth == len(key):
                    assert isinstance(value, dict)
                    return [KeyChange(key, {DELETE_KEY: True, **value})]
                return [KeyChange((*prefix, DELETE_KEY), True), change]
            break
        return [change]

    def _leaf_removal(self, config: ResolvedConfig, key: tuple[str, ...]) -> list[KeyChange]:
        node = config.get(key)
        if node is None:
            return []
        if not self._from_bases(config, key, node):
            return [KeyChange(key, REMOVE)]
        # Merging cannot remove a key a base sets: replace the whole dict, minus that key.
        parent_key = key[:-1]
        parent = config.get(parent_key) if parent_key else None
        if not isinstance(parent, DictNode):
            raise NotPlaceable(f"`{dotted(key)}` comes from a base; a config cannot remove it")
        try:
            rest = to_python(parent)
        except UnknownValueError as error:
            raise NotPlaceable(
                f"`{dotted(key)}` comes from a base, and `{dotted(parent_key)}` holds "
                f"`{error.node.source}`, which cfglint cannot rewrite in {config.path.name}"
            ) from None
        assert isinstance(rest, dict)
        value = {DELETE_KEY: True, **{k: v for k, v in rest.items() if k != key[-1]}}
        value[key[-1]] = REMOVE
        return [KeyChange(parent_key, value)]

    def _from_bases(self, config: ResolvedConfig, key: tuple[str, ...], node: ConfigNode) -> bool:
        """Whether a base of ``config`` sets ``key`` (so that the config merges over it)."""
        if real(node.origin.path) != real(config.path):
            return True
        for base in config.files[1:]:
            cache_key = (base, key)
            if cache_key not in self._base_keys:
                loaded = self._loader.load(base)
                self._base_keys[cache_key] = (
                    isinstance(loaded, ResolvedConfig) and loaded.get(key) is not None
                )
            if self._base_keys[cache_key]:
                return True
        return False


def resolved_keys(config: ResolvedConfig, changes: tuple[KeyChange, ...]) -> ResolvedKeys:
    """The keys on the way to each change (and, for a dict value, under it) the config has."""
    present: set[tuple[str, ...]] = set()
    dicts: set[tuple[str, ...]] = set()

    def visit(key: tuple[str, ...], value: object) -> None:
        for depth in range(1, len(key) + 1):
            prefix = key[:depth]
            node = config.get(prefix)
            if node is None:
                return
            present.add(prefix)
            if not isinstance(node, DictNode):
                return
            dicts.add(prefix)
        if isinstance(value, dict):
            for sub_key, sub_value in value.items():
                visit((*key, str(sub_key)), sub_value)

    for change in changes:
        visit(change.key, change.value)
    return ResolvedKeys(frozenset(present), frozenset(dicts))


def _lazy_leaf_changes(config: ResolvedConfig, change: KeyChange) -> list[KeyChange]:
    """The change as a lazy-import config writes it. Nothing merges there: the fixer changes
    an imported dict in place (`env_cfg['dist_cfg']['backend'] = ...`, `del ...`), and an
    assignment replaces a value whole, so no `_delete_` is needed (it would be just a key)."""
    key, value = change.key, change.value
    if value is REMOVE:
        return [] if config.get(key) is None else [change]
    for depth in range(1, len(key) + 1):
        node = config.get(key[:depth])
        if node is None or isinstance(node, DictNode):
            continue
        if isinstance(node, UnknownNode) and (depth < len(key) or isinstance(value, dict)):
            # Written over, the value cfglint cannot see would be lost whole.
            raise NotPlaceable(f"`{dotted(key[:depth])}` cannot be evaluated statically")
        break
    return [change]


def _refuse_overlay(config: ResolvedConfig, intent: FixIntent) -> None:
    """A value the entry script (or the launcher) sets is set after the config is loaded: no
    override in the config file can change it."""
    if not config.overlay:
        return
    overlay = {real(path) for path in config.overlay}
    for change in intent.changes:
        for depth in range(1, len(change.key) + 1):
            node = config.get(change.key[:depth])
            if node is None:
                break
            if real(node.origin.path) in overlay:
                raise NotPlaceable(
                    f"`{dotted(change.key[:depth])}` is set by "
                    f"{display_path(node.origin.path)} after the config is loaded"
                )
