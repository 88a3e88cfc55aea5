"""MMEngine's ``Config._merge_a_into_b`` and base scoping, on frozen nodes with origins."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar, overload

from cfglint.codes import MMENGINE_REFUSES
from cfglint.loader.problems import LoadError
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode, UnknownNode

_Default = TypeVar("_Default")

DELETE_KEY = "_delete_"


def _type_name(node: ConfigNode) -> str:
    if isinstance(node, ScalarNode):
        return type(node.value).__name__
    if isinstance(node, SequenceNode):
        return "tuple" if node.is_tuple else "list"
    return "dict"


def _with_article(name: str) -> str:
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def _without_delete(node: DictNode) -> tuple[DictNode, bool]:
    flag = node.entries.get(DELETE_KEY)
    if flag is None:
        return node, False
    entries = {key: value for key, value in node.entries.items() if key != DELETE_KEY}
    deleted = isinstance(flag, ScalarNode) and bool(flag.value)
    return DictNode(entries, node.origin), deleted


def merge_into(
    child: Mapping[object, ConfigNode], base: Mapping[object, ConfigNode]
) -> Mapping[object, ConfigNode]:
    """The child's entries over the base's; dicts merge recursively unless ``_delete_=True``.

    Base entries the child does not touch are left as they are (lazily rebased views).
    """
    merged: dict[object, ConfigNode] = {}
    for key, value in child.items():
        if not isinstance(value, DictNode) or key not in base:
            merged[key] = value
            continue
        value, deleted = _without_delete(value)
        if deleted:
            merged[key] = value
            continue
        below = base[key]
        if isinstance(below, UnknownNode):
            reason = f"merged into a base value that is unknown: {below.reason}"
            merged[key] = UnknownNode(below.source, reason, value.origin)
            continue
        if not isinstance(below, DictNode):
            raise LoadError(
                MMENGINE_REFUSES,
                f"`{key}` is a dict here but {_with_article(_type_name(below))} in the base "
                f"({below.origin.span.display()}); MMEngine refuses to merge them: "
                f"set `{DELETE_KEY}=True` to replace the base value",
                value.origin.span,
            )
        merged[key] = DictNode(merge_into(value.entries, below.entries), value.origin)
    return OverlayEntries(merged, base) if merged else base


class OverlayEntries(Mapping[object, ConfigNode]):
    """A merged dict: the child's entries over the base's, in MMEngine's key order."""

    __slots__ = ("_base", "_own")

    def __init__(self, own: dict[object, ConfigNode], base: Mapping[object, ConfigNode]) -> None:
        self._own = own
        self._base = base

    def __getitem__(self, key: object) -> ConfigNode:
        if key in self._own:
            return self._own[key]
        return self._base[key]

    @overload
    def get(self, key: object, /) -> ConfigNode | None: ...

    @overload
    def get(self, key: object, /, default: ConfigNode | _Default) -> ConfigNode | _Default: ...

    def get(self, key: object, /, default: object = None) -> object:
        # Mapping.get would raise and catch a KeyError for each key a rule finds absent.
        found = self._own.get(key)
        if found is not None:
            return found
        return self._base.get(key, default)

    def __iter__(self) -> Iterator[object]:
        yield from self._base
        yield from (key for key in self._own if key not in self._base)

    def __len__(self) -> int:
        return len(self._base) + sum(1 for key in self._own if key not in self._base)

    def __contains__(self, key: object) -> bool:
        return key in self._own or key in self._base


def apply_scope(node: ConfigNode, scope: str, has_scope: bool = True) -> ConfigNode:
    """``_scope_`` added to the outermost dicts with a ``type`` of a ``pkg::`` base."""
    if isinstance(node, DictNode):
        entries = dict(node.entries)
        if has_scope and "type" in entries:
            has_scope = False
            current = entries.get("_scope_")
            if current is None or (isinstance(current, ScalarNode) and current.value is None):
                entries["_scope_"] = ScalarNode(scope, node.origin)
        return DictNode(
            {key: apply_scope(value, scope, has_scope) for key, value in entries.items()},
            node.origin,
        )
    if isinstance(node, SequenceNode):
        return SequenceNode(
            tuple(apply_scope(item, scope, has_scope) for item in node.items),
            node.is_tuple,
            node.origin,
        )
    return node
