"""Looking up a dotted key in a resolved config, telling apart absent, unknown and present."""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.types import ConfigNode, DictNode, UnknownNode, follow_key, split_key


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
    found = follow_key(root, split_key(key))
    if found.node is None:
        return Absent(found.anchor)
    if isinstance(found.node, UnknownNode):
        return Unknown(found.node)
    return Present(found.node)
