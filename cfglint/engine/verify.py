"""Did a round of fixes do what it meant, and nothing else? Resolved configs before and after.

A fix is text placed by a heuristic (where the value seems to be written, or an override in the
leaf); the resolved configs are the truth. A round of edits is kept only when every config it
was for now resolves to the intended values, and no key of any config that reads an edited
file changed other than those.
"""

from __future__ import annotations

from collections.abc import Iterable

from cfglint.fix.values import same_value
from cfglint.types import (
    REMOVE,
    ConfigNode,
    DictNode,
    KeyChange,
    UnknownNode,
    UnknownValueError,
    lookup,
    to_python,
)

DELETE_KEY = "_delete_"
Key = tuple[object, ...]


def _unknown(node: UnknownNode) -> object:
    return ("<unknown>", node.source)


def _flatten(node: ConfigNode, path: Key, out: dict[Key, object]) -> None:
    if isinstance(node, DictNode) and node.entries:
        for key, child in node.entries.items():
            _flatten(child, (*path, key), out)
    else:
        out[path] = to_python(node, _unknown)


def changed_keys(before: DictNode, after: DictNode) -> list[Key]:
    """The keys (down to non-dict values) whose value differs, appeared or disappeared."""
    old: dict[Key, object] = {}
    new: dict[Key, object] = {}
    _flatten(before, (), old)
    _flatten(after, (), new)
    changed = [
        key
        for key in old.keys() | new.keys()
        if key not in old or key not in new or not same_value(old[key], new[key])
    ]
    return sorted(changed, key=lambda key: tuple(map(str, key)))


def unexpected(changed: Iterable[Key], allowed: Iterable[tuple[str, ...]]) -> list[Key]:
    """Changed keys that are neither under an intended key nor on the way to one."""
    wanted = list(allowed)
    return [
        key
        for key in changed
        if not any(key[: len(want)] == want or want[: len(key)] == key for want in wanted)
    ]


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


def node_at(root: DictNode, key: Key) -> ConfigNode | None:
    node: ConfigNode = root
    for part in key:
        if not isinstance(node, DictNode) or part not in node.entries:
            return None
        node = node.entries[part]
    return node


def dotted(key: Key) -> str:
    return ".".join(map(str, key))
