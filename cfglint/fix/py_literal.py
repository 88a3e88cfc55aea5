"""The value of a libcst expression when it is a plain literal (to skip edits already made)."""

from __future__ import annotations

import libcst as cst

UNKNOWN = object()


def literal_value(node: cst.BaseExpression) -> object:
    """The Python value of a literal expression, or UNKNOWN. Parentheses change nothing."""
    if isinstance(node, cst.Name):
        return {"None": None, "True": True, "False": False}.get(node.value, UNKNOWN)
    if isinstance(node, cst.Integer | cst.Float | cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return UNKNOWN if isinstance(value, bytes) or value is None else value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_value(node.expression)
        return -inner if isinstance(inner, int | float) and not isinstance(inner, bool) else UNKNOWN
    if isinstance(node, cst.List):
        items = [_element(element) for element in node.elements]
        return UNKNOWN if UNKNOWN in items else items
    if isinstance(node, cst.Tuple):
        return _tuple(node)
    if isinstance(node, cst.Dict):
        return _dict_literal(node)
    if isinstance(node, cst.Call) and is_dict_call(node):
        return _dict_call(node)
    return UNKNOWN


def is_dict_call(node: cst.Call) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value == "dict"


def _element(element: cst.BaseElement) -> object:
    return UNKNOWN if isinstance(element, cst.StarredElement) else literal_value(element.value)


def _tuple(node: cst.Tuple) -> object:
    items = [_element(element) for element in node.elements]
    return UNKNOWN if any(item is UNKNOWN for item in items) else tuple(items)


def _dict_literal(node: cst.Dict) -> object:
    result: dict[object, object] = {}
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            return UNKNOWN
        key, value = literal_value(element.key), literal_value(element.value)
        if key is UNKNOWN or value is UNKNOWN:
            return UNKNOWN
        try:
            result[key] = value
        except TypeError:  # an unhashable key
            return UNKNOWN
    return result


def _dict_call(node: cst.Call) -> object:
    result: dict[object, object] = {}
    for arg in node.args:
        if arg.keyword is None or arg.star:
            return UNKNOWN
        value = literal_value(arg.value)
        if value is UNKNOWN:
            return UNKNOWN
        result[arg.keyword.value] = value
    return result
