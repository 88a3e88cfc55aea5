"""Key changes -> minimal text edits in a ``.yaml``/``.yml`` config.

ruamel.yaml composes the file into nodes whose marks give character offsets; edits are made at
those offsets, so comments, key order, quoting and every byte outside an edit stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cfglint.fix.changes import Branch, ChangeNode, Leaf, build_tree
from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.layout import Container, Slot, insert_entries, removal_edits, without
from cfglint.fix.text import TextDoc
from cfglint.fix.values import same_value
from cfglint.fix.yaml_load import compose, data_of
from cfglint.fix.yaml_render import (
    render_block_entry,
    render_like,
    render_node_flow,
    render_scalar,
)
from cfglint.types import REMOVE, KeyChange, TextEdit

_MISSING = object()


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """A file's nodes (with positions) and its plain data, parsed once for all its edits
    (ruamel.yaml is slow: parsing again for each fix cost most of a fix's time)."""

    root: Any  # None for an empty file
    data: object


def parse_yaml(doc: TextDoc) -> ParsedYaml:
    root = compose(doc.text)
    return ParsedYaml(root, data_of(root) if root is not None else None)


def yaml_edits(
    doc: TextDoc, changes: list[KeyChange], parsed: ParsedYaml | None = None
) -> list[TextEdit]:
    parsed = parsed or parse_yaml(doc)
    root, data = parsed.root, parsed.data
    tree = build_tree(changes)
    if root is None:  # an empty file: everything is new
        unit = "  "
        text = "".join(
            render_block_entry(key, node, "", unit, doc.newline) for key, node in tree.set_items()
        )
        return [doc.edit(len(doc.text), len(doc.text), text)] if text else []
    if _kind(root) != "map":
        raise FixNotApplicable("the top level of the file is not a mapping")
    editor = _YamlEditor(doc, _indent_unit(root))
    return editor.edit_mapping(root, data, tree, ())


def _kind(node: Any) -> str:
    return {"MappingNode": "map", "SequenceNode": "seq"}.get(type(node).__name__, "scalar")


def _indent_unit(root: Any) -> str:
    """The smallest step between a key's column and its nested keys' column (2 by default)."""
    steps = []
    stack = [root]
    while stack:
        node = stack.pop()
        if _kind(node) != "map" or node.flow_style:
            continue
        for key, value in node.value:
            if _kind(value) == "map" and not value.flow_style and value.value:
                steps.append(value.value[0][0].start_mark.column - key.start_mark.column)
            stack.append(value)
    positive = [step for step in steps if step > 0]
    return " " * (min(positive) if positive else 2)


def _is_empty(node: Any) -> bool:
    return _kind(node) == "scalar" and node.value == "" and node.style is None


def _after_colon(text: str, key: Any) -> int:
    return text.index(":", int(key.end_mark.index)) + 1


def _last_end(text: str, node: Any, key: Any = None) -> int:
    """Offset just after the last character of a value (block collections end at their last leaf).

    An empty value (``key:``) ends at the colon after its key.
    """
    if _is_empty(node) and key is not None:
        return _after_colon(text, key)
    if _kind(node) == "scalar" or node.flow_style or not node.value:
        return int(node.end_mark.index)
    if _kind(node) == "map":
        last_key, last_value = node.value[-1]
        return _last_end(text, last_value, last_key)
    return _last_end(text, node.value[-1])


class _YamlEditor:
    def __init__(self, doc: TextDoc, unit: str) -> None:
        self.doc = doc
        self.unit = unit

    def edit_mapping(
        self, node: Any, data: object, branch: Branch, path: tuple[str, ...]
    ) -> list[TextEdit]:
        if node.anchor is not None or not isinstance(data, dict):
            raise FixNotApplicable(f"`{'.'.join(path)}` is shared through a YAML anchor")
        pairs = list(node.value)
        text = self.doc.text
        keys = [key.value if key.tag.endswith(":str") else None for key, _ in pairs]
        edits: list[TextEdit] = []
        missing: list[tuple[str, ChangeNode]] = []
        removals: list[int] = []
        for key, child in branch.children.items():
            index = max((i for i, name in enumerate(keys) if name == key), default=None)
            if index is None:
                if any(k.tag.endswith(":merge") for k, _ in pairs) or "<<" in keys:
                    raise FixNotApplicable(f"`{'.'.join(path)}` merges keys with `<<`")
                missing.extend(Branch({key: child}).set_items())
                continue
            key_node, value_node = pairs[index]
            if value_node.start_mark.index < key_node.end_mark.index:
                raise FixNotApplicable(f"`{'.'.join((*path, key))}` is a YAML alias")
            if isinstance(child, Leaf) and child.value is REMOVE:
                removals.append(index)
            else:
                value_data = data.get(key, _MISSING)
                if _is_empty(value_node) and isinstance(child, Leaf):
                    edits.extend(self._fill_empty(key_node, value_data, child))
                else:
                    edits.extend(self._edit_value(value_node, value_data, child, (*path, key)))
        box = Container(
            tuple(
                Slot(k.start_mark.index, _last_end(text, v, k), self._comma_end(node, k, v))
                for k, v in pairs
            ),
            int(node.start_mark.index) + 1 if node.flow_style else -1,
            int(node.end_mark.index) - 1 if node.flow_style else -1,
        )
        if removals:
            if len(removals) == len(pairs) and not node.flow_style:
                raise FixNotApplicable(f"removing every key would leave `{'.'.join(path)}` null")
            edits.extend(
                removal_edits(self.doc, box, removals)
                if node.flow_style
                else [self._remove_block(pairs[index]) for index in removals]
            )
        if missing:
            edits.extend(self._insert(node, without(self.doc, box, removals), missing))
        return edits

    def _comma_end(self, mapping: Any, key: Any, value: Any) -> int | None:
        if not mapping.flow_style:
            return None
        end = _last_end(self.doc.text, value, key)
        rest = self.doc.text[end : int(mapping.end_mark.index)]
        stripped = rest.lstrip(" \t\r\n")
        return end + (len(rest) - len(stripped)) + 1 if stripped.startswith(",") else None

    def _edit_value(
        self, node: Any, data: object, change: ChangeNode, path: tuple[str, ...]
    ) -> list[TextEdit]:
        if isinstance(change, Branch) and _kind(node) == "map":
            return self.edit_mapping(node, data, change, path)
        if isinstance(change, Leaf) and same_value(data, change.value):
            return []
        if isinstance(change, Branch) and not change.whole:
            raise FixNotApplicable(f"`{'.'.join(path)}` is not a mapping here")
        if _kind(node) != "scalar" and not node.flow_style:
            raise FixNotApplicable(f"`{'.'.join(path)}` is a block collection; edit it by hand")
        if node.anchor is not None:
            raise FixNotApplicable(f"`{'.'.join(path)}` is shared through a YAML anchor")
        start, end = int(node.start_mark.index), int(node.end_mark.index)
        if isinstance(change, Leaf) and _kind(node) == "scalar":
            return [self.doc.edit(start, end, render_like(change.value, node.style))]
        return [self.doc.edit(start, end, render_node_flow(change))]

    def _fill_empty(self, key: Any, data: object, change: Leaf) -> list[TextEdit]:
        # `key:` with nothing after it: the null scalar has no text of its own.
        if same_value(data, change.value):
            return []
        colon = _after_colon(self.doc.text, key)
        return [self.doc.edit(colon, colon, " " + render_node_flow(change))]

    def _remove_block(self, pair: tuple[Any, Any]) -> TextEdit:
        key, value = pair
        start = key.start_mark.index
        end = _last_end(self.doc.text, value, key)
        if self.doc.indent_before(start) is None:
            raise FixNotApplicable(f"cannot remove `{key.value}`: it does not start its line")
        stop = end if end == self.doc.line_start(end) else self.doc.next_line_start(end)
        return self.doc.edit(self.doc.line_start(start), stop, "")

    def _insert(
        self, node: Any, box: Container, items: list[tuple[str, ChangeNode]]
    ) -> list[TextEdit]:
        doc = self.doc
        if node.flow_style:
            entries = [f"{render_scalar(key)}: {render_node_flow(child)}" for key, child in items]
            return insert_entries(doc, box, entries, self.unit)
        first_key = node.value[0][0]
        indent = doc.indent_before(first_key.start_mark.index)
        indent = indent if indent is not None else " " * first_key.start_mark.column
        end = box.slots[-1].end if box.slots else _last_end(self.doc.text, node)
        at = end if end == doc.line_start(end) else doc.next_line_start(end)
        text = "".join(render_block_entry(k, c, indent, self.unit, doc.newline) for k, c in items)
        if at == len(doc.text) and doc.text and not doc.text.endswith(("\n", "\r")):
            text = doc.newline + text
        return [doc.edit(at, at, text)]
