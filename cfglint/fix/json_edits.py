"""Key changes -> minimal text edits in a ``.json`` config, in each object's own layout."""

from __future__ import annotations

import json

from cfglint.fix.changes import Branch, ChangeNode, Leaf, build_tree
from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.json_parse import JsonValue, parse_json
from cfglint.fix.layout import Container, Slot, insert_entries, removal_edits, without
from cfglint.fix.text import TextDoc
from cfglint.fix.values import same_value
from cfglint.types import REMOVE, KeyChange, TextEdit


def _plain(node: ChangeNode) -> object:
    if isinstance(node, Leaf):
        value = node.value
        return list(value) if isinstance(value, tuple) else value
    return {key: _plain(child) for key, child in node.set_items()}


def _json_equal(text_value: object, node: ChangeNode) -> bool:
    # JSON has no tuples; compare the way the value would read back.
    return same_value(text_value, json.loads(_dump(_plain(node), None)))


def _dump(value: object, indent: str | None) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise FixNotApplicable(f"cannot write this value into a JSON config: {error}") from None


class _JsonEditor:
    def __init__(self, doc: TextDoc) -> None:
        self.doc = doc

    def render(self, node: ChangeNode, indent: str, multiline: bool, unit: str) -> str:
        """The value as JSON; containers spread over lines (at ``indent``) when the object is."""
        if not multiline:
            return _dump(_plain(node), None)
        return _dump(_plain(node), unit).replace("\n", self.doc.newline + indent)

    def edit_object(self, obj: JsonValue, branch: Branch, path: tuple[str, ...]) -> list[TextEdit]:
        doc = self.doc
        edits: list[TextEdit] = []
        removals: list[int] = []
        missing: list[tuple[str, ChangeNode]] = []
        keys = [member.key for member in obj.members]
        box = Container(
            tuple(Slot(m.key_start, m.value.end, m.comma_end) for m in obj.members),
            obj.start + 1,
            obj.end - 1,
            trailing_comma_allowed=False,
        )
        multiline = doc.line_of(obj.start) != doc.line_of(obj.end - 1)
        unit = self._unit(obj)
        for key, child in branch.children.items():
            index = max((i for i, name in enumerate(keys) if name == key), default=None)
            if index is None:
                missing.extend(Branch({key: child}).set_items())
            elif isinstance(child, Leaf) and child.value is REMOVE:
                removals.append(index)
            else:
                value = obj.members[index].value
                if isinstance(child, Branch) and value.is_object:
                    edits.extend(self.edit_object(value, child, (*path, key)))
                elif isinstance(child, Branch) and not child.whole:
                    raise FixNotApplicable(f"`{'.'.join((*path, key))}` is not an object here")
                elif not _json_equal(value.value, child):
                    indent = doc.indent_before(obj.members[index].key_start) or ""
                    text = self.render(child, indent, multiline, unit)
                    edits.append(doc.edit(value.start, value.end, text))
        edits.extend(removal_edits(doc, box, removals))
        if missing:
            separator = self._separator(obj)
            remaining = without(doc, box, removals)
            if remaining.slots:
                indent = doc.indent_before(remaining.slots[-1].start) or ""
            else:
                indent = (doc.indent_before(obj.end - 1) or "") + unit
            entries = [
                _dump(key, None) + separator + self.render(child, indent, multiline, unit)
                for key, child in missing
            ]
            edits.extend(insert_entries(doc, remaining, entries, unit))
        return edits

    def _separator(self, obj: JsonValue) -> str:
        for member in obj.members:
            between = self.doc.text[self._key_end(member.key_start) : member.value.start]
            if "\n" not in between and "\r" not in between:
                return between
        return ": "

    def _key_end(self, key_start: int) -> int:
        _value, end = json.JSONDecoder().raw_decode(self.doc.text, key_start)
        return end

    def _unit(self, obj: JsonValue) -> str:
        inner = self.doc.indent_before(obj.members[0].key_start) if obj.members else None
        outer = self.doc.indent_before(obj.end - 1)
        if inner is not None and outer is not None and inner.startswith(outer) and inner != outer:
            return inner[len(outer) :]
        return "  "


def json_edits(doc: TextDoc, changes: list[KeyChange]) -> list[TextEdit]:
    root = parse_json(doc.text)
    if not root.is_object:
        raise FixNotApplicable("the top level of the file is not an object")
    return _JsonEditor(doc).edit_object(root, build_tree(changes), ())
