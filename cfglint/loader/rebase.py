"""Re-root a base file's resolved tree under the config that inherits it.

A memoised file's origins have chains starting at that file. A config inheriting it needs
chains starting at itself. Rewriting whole trees for each of 2,000 leaves is the slowest part
of a naive loader, so dict entries are rebased lazily, when a rule or ``show`` reaches them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TypeVar, overload

from cfglint.types import ConfigNode, DictNode, Origin, ScalarNode, SequenceNode, UnknownNode

_Default = TypeVar("_Default")


def rebase_origin(origin: Origin, prefix: tuple[Path, ...]) -> Origin:
    return Origin(origin.span, prefix + origin.chain, origin.env_dependent)


class RebasedEntries(Mapping[object, ConfigNode]):
    """A dict's entries, each rebased on first access."""

    __slots__ = ("_cache", "_prefix", "_source")

    def __init__(self, source: Mapping[object, ConfigNode], prefix: tuple[Path, ...]) -> None:
        self._source = source
        self._prefix = prefix
        self._cache: dict[object, ConfigNode] = {}

    def __getitem__(self, key: object) -> ConfigNode:
        cached = self._cache.get(key)
        if cached is None:
            cached = rebase(self._source[key], self._prefix)
            self._cache[key] = cached
        return cached

    @overload
    def get(self, key: object, /) -> ConfigNode | None: ...

    @overload
    def get(self, key: object, /, default: ConfigNode | _Default) -> ConfigNode | _Default: ...

    def get(self, key: object, /, default: object = None) -> object:
        # Mapping.get would raise and catch a KeyError for each key a rule finds absent.
        return self[key] if key in self._source else default

    def __iter__(self) -> Iterator[object]:
        return iter(self._source)

    def __len__(self) -> int:
        return len(self._source)

    def __contains__(self, key: object) -> bool:
        return key in self._source

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def rebase(node: ConfigNode, prefix: tuple[Path, ...]) -> ConfigNode:
    if not prefix:
        return node
    origin = rebase_origin(node.origin, prefix)
    if isinstance(node, ScalarNode):
        return ScalarNode(node.value, origin)
    if isinstance(node, UnknownNode):
        return UnknownNode(node.source, node.reason, origin)
    if isinstance(node, DictNode):
        return DictNode(RebasedEntries(node.entries, prefix), origin)
    return SequenceNode(tuple(rebase(item, prefix) for item in node.items), node.is_tuple, origin)
