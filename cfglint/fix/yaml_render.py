"""Render values as YAML text: flow style inline, block style for new nested mappings."""

from __future__ import annotations

import json
import math

from cfglint.fix.changes import Branch, ChangeNode, Leaf
from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.values import same_value
from cfglint.fix.yaml_load import load
from cfglint.reprs import display_repr, is_printable_int

_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def _loads_back(text: str, value: object) -> bool:
    try:
        loaded = load(f"k: {text}\n")
    except Exception:  # any parse failure means the plain form is not safe
        return False
    return isinstance(loaded, dict) and same_value(loaded.get("k"), _plain(value))


def _plain(value: object) -> object:
    # YAML has no tuples: a tuple reads back as a list.
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def render_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not is_printable_int(value):  # too long for str()
            raise FixNotApplicable(f"cannot write {display_repr(value)} into a YAML config")
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FixNotApplicable(f"cannot write {display_repr(value)} into a YAML config")
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if not _loads_back(text, value) and "." not in mantissa and exponent:
            text = f"{mantissa}.0e{exponent}"  # YAML 1.2 reads `1e-05` as a string
        if not _loads_back(text, value):
            raise FixNotApplicable(f"cannot write {display_repr(value)} into a YAML config")
        return text
    if isinstance(value, str):
        plain_ok = value and value[0] not in _INDICATORS and not set(value) & set(",[]{}#")
        if plain_ok and value.strip() == value and ": " not in value and _loads_back(value, value):
            return value
        if value.isprintable():
            return "'" + value.replace("'", "''") + "'"
        return json.dumps(value, ensure_ascii=False)
    raise FixNotApplicable(f"cannot write a {type(value).__name__} value into a YAML config")


def render_like(value: object, quote: str | None) -> str:
    """A new scalar in the quoting of the one it replaces (``'nccl'`` -> ``'gloo'``)."""
    if isinstance(value, str) and quote == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, str) and quote == '"':
        return json.dumps(value, ensure_ascii=False)
    return render_flow(value)


def render_flow(value: object) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(render_flow(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{render_scalar(key)}: {render_flow(item)}" for key, item in value.items())
        return "{" + ", ".join(items) + "}"
    return render_scalar(value)


def render_node_flow(node: ChangeNode) -> str:
    if isinstance(node, Leaf):
        return render_flow(node.value)
    items = (f"{render_scalar(key)}: {render_node_flow(child)}" for key, child in node.set_items())
    return "{" + ", ".join(items) + "}"


def render_block_entry(key: str, node: ChangeNode, indent: str, unit: str, newline: str) -> str:
    """``key: value`` lines at ``indent``; a dict becomes a nested block mapping."""
    if isinstance(node, Branch):
        lines = f"{indent}{render_scalar(key)}:{newline}"
        for child_key, child in node.set_items():
            lines += render_block_entry(child_key, child, indent + unit, unit, newline)
        return lines
    return f"{indent}{render_scalar(key)}: {render_flow(node.value)}{newline}"
