"""Looking up a dotted key in a resolved config, telling apart absent, unknown and present."""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.types import ConfigNode, DictNode, UnknownNode, split_key


@dataclass(frozen=True, slots=True)
class Present:
    node: ConfigNode


@dataclass(frozen=True, slots=True)
class Absent:
    """The key is not there; `anchor` is the deepest dict on its path that is (None: root)."""

    anchor: DictNode | None


@dataclass(frozen=True, slots=True)
class Unknown:
    node: UnknownNode


KeyState = Present | Absent | Unknown


def key_state(root: DictNode, key: str) -> KeyState:
    node: ConfigNode = root
    anchor: DictNode | None = None
    for part in split_key(key):
        if isinstance(node, UnknownNode):
            return Unknown(node)
        if not isinstance(node, DictNode):
            return Absent(anchor)
        anchor = node if node is not root else None
        child = node.entries.get(part)
        if child is None:
            return Absent(anchor)
        node = child
    if isinstance(node, UnknownNode):
        return Unknown(node)
    return Present(node)
