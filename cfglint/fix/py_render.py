"""Render values as Python source in the file's own style."""

from __future__ import annotations

import keyword
import math
from dataclasses import dataclass
from typing import Literal

from cfglint.fix.changes import ChangeNode, Leaf
from cfglint.fix.errors import FixNotApplicable
from cfglint.reprs import display_repr, is_printable_int

DictKind = Literal["call", "literal"]


@dataclass(frozen=True, slots=True)
class PyStyle:
    quote: str  # ' or "
    dict_kind: DictKind  # how the file writes dicts: dict(...) calls or {...} literals
    indent_unit: str
    newline: str
    multiline_dicts: bool  # top-level dict assignments with several keys span several lines
    trailing_comma: bool  # multi-line dicts end with a comma
    line_length: int = 79  # the longest line the file already has (at least PEP 8's 79)


def is_keyword_name(key: str) -> bool:
    return key.isidentifier() and not keyword.iskeyword(key)


def render_string(text: str, quote: str) -> str:
    other = '"' if quote == "'" else "'"
    if quote in text and other not in text:
        quote = other
    out = []
    for char in text:
        if char == "\\" or char == quote:
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)  # non-ASCII text (Chinese comments, paths) stays readable
        else:
            out.append(repr(char)[1:-1])
    return quote + "".join(out) + quote


def render_value(value: object, style: PyStyle, kind: DictKind) -> str:
    """One-line source for a value; dicts as ``dict(...)`` or ``{...}`` following ``kind``."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        if not is_printable_int(value):  # MMEngine reads it, but Python will not write it
            raise FixNotApplicable(f"cannot write {display_repr(value)} as a config literal")
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FixNotApplicable(f"cannot write {display_repr(value)} as a config literal")
        return repr(value)
    if isinstance(value, str):
        return render_string(value, style.quote)
    if isinstance(value, list):
        return "[" + ", ".join(render_value(item, style, kind) for item in value) + "]"
    if isinstance(value, tuple):
        items = [render_value(item, style, kind) for item in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, dict):
        entries: list[tuple[object, ChangeNode]] = [(k, Leaf(item)) for k, item in value.items()]
        return render_dict(entries, style, kind)
    raise FixNotApplicable(f"cannot write a {type(value).__name__} value into a config")


def render_node(node: ChangeNode, style: PyStyle, kind: DictKind) -> str:
    if isinstance(node, Leaf):
        return render_value(node.value, style, kind)
    return render_dict(list(node.set_items()), style, kind)


def dict_items(items: list[tuple[object, ChangeNode]], style: PyStyle, kind: DictKind) -> list[str]:
    """``key=value`` (call) or ``'key': value`` (literal) for each item."""
    rendered = []
    for key, node in items:
        value = render_node(node, style, kind)
        if kind == "call":
            assert isinstance(key, str)
            rendered.append(f"{key}={value}")
        else:
            rendered.append(f"{render_value(key, style, kind)}: {value}")
    return rendered


def kind_for(items: list[tuple[object, ChangeNode]], preferred: DictKind) -> DictKind:
    # dict(...) only takes identifier keys; anything else needs a literal.
    if all(isinstance(key, str) and is_keyword_name(key) for key, _ in items):
        return preferred
    return "literal"


def render_dict(items: list[tuple[object, ChangeNode]], style: PyStyle, kind: DictKind) -> str:
    kind = kind_for(items, kind)
    body = ", ".join(dict_items(items, style, kind))
    return f"dict({body})" if kind == "call" else "{" + body + "}"


def render_dict_multiline(
    items: list[tuple[object, ChangeNode]], style: PyStyle, kind: DictKind, indent: str = ""
) -> str:
    """One key per line, nested dicts on their key's line, closing bracket at ``indent`` (the
    indentation of the line the dict starts on)."""
    kind = kind_for(items, kind)
    lines = dict_items(items, style, kind)
    inner = indent + style.indent_unit
    separator = "," + style.newline + inner
    body = inner + separator.join(lines)
    body += ("," if style.trailing_comma else "") + style.newline
    opening, closing = ("dict(", ")") if kind == "call" else ("{", "}")
    return opening + style.newline + body + indent + closing
