"""Key changes -> minimal text edits in a ``.py`` config, from libcst node positions."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from cfglint.fix.changes import Branch, ChangeNode, Leaf, build_tree
from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.layout import Container, Slot, insert_entries, removal_edits, without
from cfglint.fix.py_dicts import DictView, Positions, dict_view
from cfglint.fix.py_literal import UNKNOWN, literal_value
from cfglint.fix.py_render import (
    PyStyle,
    is_keyword_name,
    render_dict,
    render_dict_multiline,
    render_node,
    render_string,
)
from cfglint.fix.py_scan import scan_module
from cfglint.fix.py_style import read_style
from cfglint.fix.py_toplevel import (
    base_statement,
    count_assignments,
    find_assignment,
)
from cfglint.fix.text import TextDoc
from cfglint.fix.values import same_value
from cfglint.types import REMOVE, KeyChange, TextEdit

# A new top-level dict longer than this on one line is written one key per line (PEP 8).
MAX_ONE_LINE = 79


@dataclass(frozen=True, slots=True)
class _Context:
    doc: TextDoc
    positions: Positions
    style: PyStyle

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        code_range = self.positions[node]
        return (
            self.doc.offset(code_range.start.line, code_range.start.column + 1),
            self.doc.offset(code_range.end.line, code_range.end.column + 1),
        )


def python_edits(doc: TextDoc, changes: list[KeyChange]) -> list[TextEdit]:
    try:
        module = cst.parse_module(doc.text)
    except cst.ParserSyntaxError as error:
        raise FixNotApplicable(f"the file does not parse (line {error.raw_line})") from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    scan = scan_module(module)
    context = _Context(doc, positions, read_style(module, scan, doc, positions))
    edits: list[TextEdit] = []
    new_names: list[tuple[str, ChangeNode]] = []
    for name, node in build_tree(changes).children.items():
        assignment = find_assignment(module, name)
        if assignment is None:
            new_names.append((name, node))
        elif isinstance(node, Leaf) and node.value is REMOVE:
            if count_assignments(module, name) != 1:
                raise FixNotApplicable(f"`{name}` is assigned more than once")
            start, end = context.offsets(assignment.statement)
            edits.append(doc.edit(doc.line_start(start), doc.next_line_start(end), ""))
        else:
            edits.extend(_edit_value(context, assignment.value, node, (name,)))
    if new_names:
        edits.extend(_new_assignments(context, module, scan.uses_read_base, new_names))
    return edits


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _edit_value(
    context: _Context, value: cst.BaseExpression, node: ChangeNode, path: tuple[str, ...]
) -> list[TextEdit]:
    """Edits making ``value`` (an expression in the file) carry the change ``node``."""
    start, end = context.offsets(value)
    if isinstance(node, Leaf):
        if same_value(literal_value(value), node.value):
            return []
        kind = context.style.dict_kind
        return [context.doc.edit(start, end, render_node(node, context.style, kind))]
    view = dict_view(context.doc, context.positions, value)
    if view is None:
        code = context.doc.text[start:end]
        if node.whole and literal_value(value) is not UNKNOWN:
            rendered = render_node(node, context.style, context.style.dict_kind)
            return [context.doc.edit(start, end, rendered)]
        raise FixNotApplicable(f"`{_dotted(path)}` is not a literal dict here: `{code}`")
    return _edit_dict(context, view, node, path)


def _edit_dict(
    context: _Context, view: DictView, branch: Branch, path: tuple[str, ...]
) -> list[TextEdit]:
    edits: list[TextEdit] = []
    missing: list[tuple[str, ChangeNode]] = []
    removals: list[int] = []
    for key, child in branch.children.items():
        index = view.find(key)
        is_removal = isinstance(child, Leaf) and child.value is REMOVE
        if index is not None and view.opaque and is_removal:
            raise FixNotApplicable(f"`{_dotted((*path, key))}` may also come from `**` unpacking")
        if index is None:
            if view.opaque and (not is_removal):
                raise FixNotApplicable(
                    f"cannot add `{key}` to `{_dotted(path)}`: the dict unpacks other values"
                )
            missing.extend((k, c) for k, c in Branch({key: child}).set_items())
        elif is_removal:
            removals.append(index)
        else:
            element_value = view.elements[index].value
            assert element_value is not None
            edits.extend(_edit_value(context, element_value, child, (*path, key)))
    box = Container(
        tuple(Slot(element.start, element.end, element.comma_end) for element in view.elements),
        view.open_end,
        view.close_start,
    )
    edits.extend(removal_edits(context.doc, box, removals))
    if missing:
        if view.kind == "call" and not all(is_keyword_name(key) for key, _ in missing):
            raise FixNotApplicable(f"`{_dotted(path)}` is a dict(...) call: keys must be names")
        entries = _entries(context, view, missing)
        remaining = without(context.doc, box, removals)
        edits.extend(insert_entries(context.doc, remaining, entries, context.style.indent_unit))
    return edits


def _entries(context: _Context, view: DictView, items: list[tuple[str, ChangeNode]]) -> list[str]:
    """``key=value`` / ``'key': value`` for new entries, nested dicts spelled like the parent."""
    style, kind = context.style, view.kind
    if kind == "call":
        return [f"{key}={render_node(node, style, kind)}" for key, node in items]
    quote = style.quote
    return [f"{render_string(key, quote)}: {render_node(node, style, kind)}" for key, node in items]


def _new_assignments(
    context: _Context, module: cst.Module, lazy: bool, items: list[tuple[str, ChangeNode]]
) -> list[TextEdit]:
    statements = []
    for name, node in items:
        if isinstance(node, Leaf) and node.value is REMOVE:
            continue
        if isinstance(node, Branch) and not any(True for _ in node.set_items()):
            continue
        if not is_keyword_name(name):
            raise FixNotApplicable(f"`{name}` cannot be a top-level name in a .py config")
        if lazy:
            raise FixNotApplicable(
                f"`{name}` comes from a lazy import: a new assignment would replace it, not merge"
            )
        statements.append(f"{name} = {_render_top(context.style, name, node)}")
    if not statements:
        return []
    return [_insert_statements(context, module, statements)]


def _render_top(style: PyStyle, name: str, node: ChangeNode) -> str:
    if isinstance(node, Leaf):
        return render_node(node, style, style.dict_kind)
    items: list[tuple[object, ChangeNode]] = list(node.set_items())
    one_line = render_dict(items, style, style.dict_kind)
    too_long = len(name) + 3 + len(one_line) > MAX_ONE_LINE
    if len(items) >= 2 and (style.multiline_dicts or too_long):
        return render_dict_multiline(items, style, style.dict_kind)
    return one_line


def _insert_statements(context: _Context, module: cst.Module, statements: list[str]) -> TextEdit:
    doc, newline = context.doc, context.doc.newline
    block = (newline + newline).join(statements)
    base = base_statement(module)
    if base is None:
        # No base to merge over: append at the end, one blank line after the last statement.
        text = doc.text
        if text.strip() == "":
            return doc.edit(0, len(text), block + newline) if not text else doc.edit(
                len(text), len(text), block + newline
            )
        if not text.endswith(("\n", "\r")):
            return doc.edit(len(text), len(text), newline + newline + block)
        last_line = text[doc.line_start(len(text) - 1) : len(text)]
        gap = "" if last_line.strip() == "" else newline
        return doc.edit(len(text), len(text), gap + block + newline)
    _start, end = context.offsets(base)
    at = doc.next_line_start(end)
    if at == end:  # `_base_` is the last line and has no line break
        return doc.edit(at, at, newline + newline + block)
    following = doc.text[at : doc.line_end(at)]
    if at == len(doc.text) or following.strip() == "":
        return doc.edit(at, at, newline + block + newline)
    # The file writes the next statement right under `_base_`: do the same.
    return doc.edit(at, at, block + newline)
