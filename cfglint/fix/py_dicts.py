"""A uniform view of a ``dict(...)`` call or a ``{...}`` literal: its entries and their offsets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

from cfglint.fix.py_literal import UNKNOWN, is_dict_call, literal_value
from cfglint.fix.py_render import DictKind
from cfglint.fix.text import TextDoc


@dataclass(frozen=True, slots=True)
class Element:
    """One argument or dict element, with its offsets (``end`` excludes the comma)."""

    key: object  # the literal key, or UNKNOWN (`**x`, a positional argument, a computed key)
    value: cst.BaseExpression | None
    start: int
    end: int
    comma_end: int | None  # offset after its comma, None without one


@dataclass(frozen=True, slots=True)
class DictView:
    kind: DictKind
    elements: tuple[Element, ...]
    open_end: int  # just after `(` or `{`
    close_start: int  # at `)` or `}`

    @property
    def opaque(self) -> bool:
        """Keys may come from somewhere the view cannot see (``**x``, a positional argument)."""
        return any(element.key is UNKNOWN for element in self.elements)

    def find(self, key: str) -> int | None:
        """Index of the element for ``key`` (the last one: a later key wins)."""
        found = None
        for index, element in enumerate(self.elements):
            if element.key == key and isinstance(element.key, str):
                found = index
        return found


Positions = Mapping[cst.CSTNode, CodeRange]


def node_offsets(doc: TextDoc, positions: Positions, node: cst.CSTNode) -> tuple[int, int]:
    """Start and end offsets of a node in the text. For an expression, without its
    parentheses (libcst's syntactic position leaves them out): what Python's ``ast``, and so
    the loader's spans, call the expression."""
    code_range = positions[node]
    start = doc.offset(code_range.start.line, code_range.start.column + 1)
    end = doc.offset(code_range.end.line, code_range.end.column + 1)
    return start, end


def _comma_end(doc: TextDoc, positions: Positions, comma: object) -> int | None:
    if isinstance(comma, cst.Comma):
        return node_offsets(doc, positions, comma)[0] + 1
    return None


def dict_view(doc: TextDoc, positions: Positions, node: cst.BaseExpression) -> DictView | None:
    """The view of a dict call or literal (parenthesised or not), None for any other expression."""
    if isinstance(node, cst.Call) and is_dict_call(node):
        start, end = node_offsets(doc, positions, node)
        func_end = node_offsets(doc, positions, node.func)[1]
        open_end = doc.text.index("(", func_end) + 1
        call_elements = tuple(_arg(doc, positions, arg) for arg in node.args)
        return DictView("call", call_elements, open_end, end - 1)
    if isinstance(node, cst.Dict):
        start, end = node_offsets(doc, positions, node)
        elements = tuple(_dict_element(doc, positions, element) for element in node.elements)
        return DictView("literal", elements, start + 1, end - 1)
    return None


def _arg(doc: TextDoc, positions: Positions, arg: cst.Arg) -> Element:
    start, end = node_offsets(doc, positions, arg)
    key: object = arg.keyword.value if arg.keyword is not None and not arg.star else UNKNOWN
    return Element(key, arg.value, start, end, _comma_end(doc, positions, arg.comma))


def _dict_element(doc: TextDoc, positions: Positions, element: cst.BaseDictElement) -> Element:
    start, end = node_offsets(doc, positions, element)
    comma = _comma_end(doc, positions, element.comma)
    if not isinstance(element, cst.DictElement):
        return Element(UNKNOWN, None, start, end, comma)
    return Element(literal_value(element.key), element.value, start, end, comma)
