"""Did a round of fixes do what it meant, and nothing else? Resolved configs before and after.

A fix is text placed by a heuristic (where the value seems to be written, or an override in the
leaf); the resolved configs are the truth. A round of edits is kept only when every config it
was for now resolves to the intended values, and no key of any config that reads an edited
file changed other than those.

Before the edits, each config is reduced to a digest per top-level key (the keys the round
means to change left out), so that its resolved tree need not stay in memory while the configs
are resolved again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from cfglint.fix.values import same_value
from cfglint.loader.merge import DELETE_KEY
from cfglint.reprs import exact_repr
from cfglint.types import (
    REMOVE,
    ConfigNode,
    DictNode,
    KeyChange,
    ScalarNode,
    SequenceNode,
    Span,
    UnknownNode,
    UnknownValueError,
    lookup,
    to_python,
)

Key = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a round means to do to one config."""

    # Keys that may change, with everything under them (a dict written whole).
    allowed: tuple[tuple[str, ...], ...] = ()
    # Values the config must end with.
    intended: tuple[KeyChange, ...] = ()
    # Literals rewritten where they are written: a key of this config holding one of them (a
    # module-level variable read by the fixed key) changes with it, as its author meant.
    replaced: frozenset[Span] = frozenset()


def _items(entries: Mapping[object, ConfigNode]) -> Iterator[tuple[object, ConfigNode]]:
    """A dict's entries, read without making the loader keep a copy of each.

    The loader re-roots a base's entries under each config on first access and keeps the copies
    (cfglint.loader.rebase), behind merged views (cfglint.loader.merge). Comparing every key of
    thousands of configs through them would keep a copy of every value; re-rooting changes only
    origin chains, which are not compared, so the entries are read from below those views.
    Any other mapping is read as it is.
    """
    for key in entries:
        yield key, _peek(entries, key)


def _peek(entries: Mapping[object, ConfigNode], key: object) -> ConfigNode:
    source = getattr(entries, "_source", None)  # a re-rooted view
    if isinstance(source, Mapping):
        return _peek(source, key)
    own, base = getattr(entries, "_own", None), getattr(entries, "_base", None)  # a merged one
    if isinstance(own, dict) and isinstance(base, Mapping):
        return own[key] if key in own else _peek(base, key)
    return entries[key]


def _leaves(node: ConfigNode, path: Key = ()) -> Iterator[tuple[Key, ConfigNode]]:
    """Every key down to non-dict values (an empty dict is a value)."""
    if isinstance(node, DictNode) and node.entries:
        for key, child in _items(node.entries):
            yield from _leaves(child, (*path, key))
    else:
        yield path, node


def dotted(key: Key) -> str:
    return ".".join(map(str, key))


class Baseline:
    """One config as it resolved before a round, for comparing with it afterwards."""

    def __init__(
        self, root: DictNode, expectation: Expectation, touched: frozenset[object] = frozenset()
    ) -> None:
        """``touched``: top-level keys the round changes in any config, compared one level
        deeper so that a change there is named precisely (`env_cfg.dist_cfg`)."""
        self._expectation = expectation
        self._allowed = expectation.allowed
        self._exempt: set[Key] = set()
        kept: list[tuple[Key, ConfigNode]] = []
        for key, node in _leaves(root):
            if self._is_allowed(key):
                continue
            if node.origin.span in expectation.replaced:
                self._exempt.add(key)
                continue
            kept.append((key, node))
        self._deep: set[object] = set(touched)
        self._deep.update(key[0] for key in self._allowed if key)
        self._digests = _digests(kept, self._deep)

    def _is_allowed(self, key: Key) -> bool:
        return any(key[: len(want)] == want or want[: len(key)] == key for want in self._allowed)

    def problem(self, after: DictNode) -> str | None:
        """What is wrong with the config after the round (None: nothing)."""
        kept = [
            (key, node)
            for key, node in _leaves(after)
            if not self._is_allowed(key) and key not in self._exempt
        ]
        digests = _digests(kept, self._deep)
        changed = sorted(
            dotted(prefix)
            for prefix in self._digests.keys() | digests.keys()
            if self._digests.get(prefix) != digests.get(prefix)
        )
        if changed:
            return f"it would also change `{changed[0]}`"
        for change in self._expectation.intended:
            if not holds(after, change):
                return f"it does not set `{dotted(change.key)}`"
        return None


def _digests(leaves: list[tuple[Key, ConfigNode]], deep: set[object]) -> dict[Key, bytes]:
    """A digest of the leaves (keys and values) under each top-level key, or under each of its
    keys for the top-level keys in ``deep`` (to name what changed beside a fixed key, as in
    `env_cfg.dist_cfg`, while thousands of configs' digests stay small)."""
    hashers: dict[Key, hashlib.blake2b] = {}
    # exact_repr: a key or value may be an int too long for repr (`10**5000`).
    for key, node in sorted(leaves, key=lambda item: tuple(map(exact_repr, item[0]))):
        prefix = key[:2] if key and key[0] in deep else key[:1]
        hasher = hashers.setdefault(prefix, hashlib.blake2b(digest_size=12))
        hasher.update(exact_repr((key, _comparable(node))).encode())
    return {prefix: hasher.digest() for prefix, hasher in hashers.items()}


def _comparable(node: ConfigNode) -> object:
    """The value with its types spelled out (1, 1.0 and True must not compare equal)."""
    if isinstance(node, ScalarNode):
        return (type(node.value).__name__, node.value)
    if isinstance(node, UnknownNode):
        return ("<unknown>", node.source)
    if isinstance(node, SequenceNode):
        return ("tuple" if node.is_tuple else "list", [_comparable(item) for item in node.items])
    return ("dict", [(key, _comparable(value)) for key, value in _items(node.entries)])


def holds(root: DictNode, change: KeyChange) -> bool:
    """Whether the resolved config has the change: the value (a dict: each of its keys, as
    MMEngine merges it), or no key at all for a removal."""
    return _holds(root, change.key, change.value)


def _holds(root: DictNode, key: tuple[str, ...], value: object) -> bool:
    node = lookup(root, key)
    if value is REMOVE:
        return node is None
    if node is None:
        return False
    if isinstance(value, dict):
        return isinstance(node, DictNode) and all(
            _holds(root, (*key, str(sub_key)), sub_value)
            for sub_key, sub_value in value.items()
            if sub_key != DELETE_KEY
        )
    try:
        return same_value(to_python(node), value)
    except UnknownValueError:
        return False
