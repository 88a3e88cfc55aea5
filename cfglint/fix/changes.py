"""Group a file's key changes into one tree, so changes under the same dict become one edit."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.values import same_value
from cfglint.types import REMOVE, KeyChange


@dataclass
class Leaf:
    """Set the key to ``value`` (REMOVE: delete it)."""

    value: object


@dataclass
class Branch:
    """Change some keys of the dict at this key.

    ``whole`` is True when the change gave the whole dict as a value: a non-dict value found in
    the file may then be replaced by it.
    """

    children: dict[str, ChangeNode] = field(default_factory=dict)
    whole: bool = False

    def set_items(self) -> Iterator[tuple[str, ChangeNode]]:
        """The children that write something (a REMOVE of a key that is absent writes nothing)."""
        for key, child in self.children.items():
            if isinstance(child, Leaf) and child.value is REMOVE:
                continue
            if isinstance(child, Branch) and not any(True for _ in child.set_items()):
                continue
            yield key, child


ChangeNode = Leaf | Branch


def build_tree(changes: Sequence[KeyChange]) -> Branch:
    """The changes as a tree rooted at the config root. Conflicting changes are refused."""
    root = Branch()
    for change in changes:
        if not change.key:
            raise FixNotApplicable("a change has an empty key")
        _insert(root, change.key, as_node(change.value), change.key)
    return root


def as_node(value: object) -> ChangeNode:
    """A value as a change: a dict becomes a set of keys to merge, anything else a Leaf."""
    # A dict value is a set of keys, merged the way MMEngine merges an override over its base.
    if isinstance(value, dict) and value and all(isinstance(key, str) for key in value):
        return Branch({key: as_node(item) for key, item in value.items()}, whole=True)
    return Leaf(value)


def _insert(parent: Branch, key: tuple[str, ...], node: ChangeNode, full: tuple[str, ...]) -> None:
    head, rest = key[0], key[1:]
    if rest:
        node = _nest(rest, node)
    existing = parent.children.get(head)
    if existing is None:
        parent.children[head] = node
        return
    parent.children[head] = _merge(existing, node, full)


def _nest(rest: tuple[str, ...], node: ChangeNode) -> ChangeNode:
    for part in reversed(rest):
        node = Branch({part: node})
    return node


def _merge(old: ChangeNode, new: ChangeNode, full: tuple[str, ...]) -> ChangeNode:
    if isinstance(old, Leaf) and isinstance(new, Leaf):
        if same_value(old.value, new.value):
            return old
    elif isinstance(old, Branch) and isinstance(new, Branch):
        merged = Branch(dict(old.children), whole=old.whole or new.whole)
        for key, child in new.children.items():
            current = merged.children.get(key)
            merged.children[key] = child if current is None else _merge(current, child, full)
        return merged
    raise FixNotApplicable(f"conflicting changes for `{'.'.join(full)}`")
