"""Key changes -> minimal text edits in a ``.py`` config, from libcst node positions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from cfglint.fix.changes import Branch, ChangeNode, Leaf, as_node, build_tree
from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.layout import Container, Slot, insert_entries, removal_edits, without
from cfglint.fix.py_anchor import ExpressionIndex
from cfglint.fix.py_dicts import DictView, Positions, dict_view, node_offsets
from cfglint.fix.py_literal import UNKNOWN, literal_value
from cfglint.fix.py_render import (
    PyStyle,
    is_keyword_name,
    render_dict,
    render_dict_multiline,
    render_node,
    render_string,
)
from cfglint.fix.py_scan import Scan, positions_of, scan_module
from cfglint.fix.py_style import read_style
from cfglint.fix.py_toplevel import (
    base_statement,
    count_assignments,
    find_assignment,
)
from cfglint.fix.text import TextDoc
from cfglint.fix.values import same_value
from cfglint.types import (
    REMOVE,
    KeyChange,
    ResolvedKeys,
    Span,
    SpanChange,
    TextEdit,
)

# A new top-level dict longer than this on one line is written one key per line (PEP 8).
MAX_ONE_LINE = 79


@dataclass(frozen=True, slots=True)
class _Context:
    doc: TextDoc
    positions: Positions
    style: PyStyle

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        return node_offsets(self.doc, self.positions, node)


class PyEditor:
    """One ``.py`` config parsed once; edits for any set of changes to it."""

    def __init__(self, doc: TextDoc) -> None:
        try:
            self.module = cst.parse_module(doc.text)
        except cst.ParserSyntaxError as error:
            raise FixNotApplicable(f"the file does not parse (line {error.raw_line})") from None
        positions = positions_of(self.module)
        self.scan = scan_module(positions)
        self.context = _Context(doc, positions, read_style(self.module, self.scan, doc, positions))
        self._index: ExpressionIndex | None = None

    def edits(
        self,
        changes: Sequence[KeyChange],
        anchored: Sequence[SpanChange] = (),
        resolved: ResolvedKeys | None = None,
    ) -> list[TextEdit]:
        """``resolved``: which keys on the way to ``changes`` the config has now (an override
        in a lazy-import config changes those in place); None: not known, so no name is added
        to a lazy-import config (it could be one it imports)."""
        edits = _structural_edits(self.context, self.module, self.scan, changes, resolved)
        groups: dict[Span, list[SpanChange]] = {}
        for change in anchored:
            groups.setdefault(change.span, []).append(change)
        for span, group in groups.items():
            edits.extend(self._edits_at(span, group))
        return edits

    def _expressions(self) -> ExpressionIndex:
        if self._index is None:
            self._index = ExpressionIndex(self.context.doc, self.context.positions, self.scan)
        return self._index

    def _edits_at(self, span: Span, group: list[SpanChange]) -> list[TextEdit]:
        """Edits for changes anchored at the expression written at ``span``."""
        doc = self.context.doc
        try:
            start = doc.offset(span.line, span.column)
            end = doc.offset(span.end_line, span.end_column)
        except ValueError:
            start = end = -1
        node = self._expressions().at(start, end)
        where = f"{span.line}:{span.column}"
        if node is None:
            raise FixNotApplicable(f"no expression at {where} (the file changed?)")
        itself = [change for change in group if not change.key]
        if itself:
            values = {repr(change.value) for change in itself}
            if len(values) > 1 or len(itself) != len(group):
                raise FixNotApplicable(f"conflicting changes for the value at {where}")
            if itself[0].value is REMOVE:
                return self._remove_entry(node, where)
            return _replace_literal(self.context, node, as_node(itself[0].value), where)
        view = dict_view(doc, self.context.positions, node)
        if view is None:
            code = doc.text[start:end]
            raise FixNotApplicable(f"the value at {where} is not a dict(...) or {{...}}: `{code}`")
        branch = build_tree([KeyChange(change.key, change.value) for change in group])
        return _edit_dict(self.context, view, branch, (), keys_known_absent=True)

    def _remove_entry(self, node: cst.BaseExpression, where: str) -> list[TextEdit]:
        found = self._expressions().entry_of(node)
        if found is None:
            raise FixNotApplicable(
                f"the value at {where} is not an entry of a dict(...) or {{...}}: remove it by hand"
            )
        view, index = found
        return removal_edits(self.context.doc, _container(view), [index])


def _structural_edits(
    context: _Context,
    module: cst.Module,
    scan: Scan,
    changes: Sequence[KeyChange],
    resolved: ResolvedKeys | None,
) -> list[TextEdit]:
    """Edits for keys given from the config root: found through top-level assignments, or
    (a lazy-import config changing a dict it imports) statements appended to the file."""
    if not changes:
        return []
    doc = context.doc
    edits: list[TextEdit] = []
    new_names: list[tuple[str, ChangeNode]] = []
    in_place: list[str] = []
    for name, node in build_tree(changes).children.items():
        removal = isinstance(node, Leaf) and node.value is REMOVE
        imported = resolved is not None and (
            (name,) in (resolved.present if removal else resolved.dicts)
        )
        if scan.uses_read_base and imported and (removal or isinstance(node, Branch)):
            try:
                assignment = find_assignment(module, name)
            except FixNotApplicable:  # imported by name, or changed by `.update()`
                assignment = None
            if assignment is None:
                assert resolved is not None
                in_place.extend(_in_place_statements(context, name, node, resolved))
                continue
        else:
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
        lazy_unknown = scan.uses_read_base and resolved is None
        edits.extend(_new_assignments(context, module, new_names, refuse=lazy_unknown))
    if in_place:
        edits.append(_append_statements(context, [context.doc.newline.join(in_place)]))
    return edits


def _in_place_statements(
    context: _Context, name: str, node: ChangeNode, resolved: ResolvedKeys
) -> list[str]:
    """``name['a']['b'] = value`` and ``del name['a']['b']`` (``del name``: the name itself
    removed) for a dict a lazy-import config imports and does not assign itself: appended to
    the file, they apply last.

    Nothing merges in a lazy-import config, so an assignment of ``name`` would replace the
    imported dict whole. Subscripts, not attributes: a key may be a ConfigDict method's name
    (`type`, `update`). A dict the config lacks is written whole at its first missing level.
    """
    statements: list[str] = []
    quote = context.style.quote

    def target(path: tuple[str, ...]) -> str:
        return name + "".join(f"[{render_string(key, quote)}]" for key in path)

    def visit(branch: Branch, path: tuple[str, ...]) -> None:
        for key, child in branch.children.items():
            key_path = (*path, key)
            full = (name, *key_path)
            if isinstance(child, Leaf) and child.value is REMOVE:
                if full in resolved.present:
                    statements.append(f"del {target(key_path)}")
            elif isinstance(child, Branch) and full in resolved.dicts:
                visit(child, key_path)
            elif not isinstance(child, Branch) or any(True for _ in child.set_items()):
                value = render_node(child, context.style, context.style.dict_kind)
                statements.append(f"{target(key_path)} = {value}")

    if isinstance(node, Leaf):  # REMOVE of the name itself
        return [f"del {name}"]
    visit(node, ())
    return statements


def _container(view: DictView) -> Container:
    return Container(
        tuple(Slot(element.start, element.end, element.comma_end) for element in view.elements),
        view.open_end,
        view.close_start,
    )


def _replace_literal(
    context: _Context, node: cst.BaseExpression, change: ChangeNode, where: str
) -> list[TextEdit]:
    """Replace a literal written in the file by the changed value (nothing when equal)."""
    start, end = context.offsets(node)
    current = literal_value(node)
    if current is UNKNOWN:
        code = context.doc.text[start:end]
        raise FixNotApplicable(
            f"the value at {where} is computed, not written as a literal: `{code}`"
        )
    if isinstance(change, Leaf) and same_value(current, change.value):
        return []
    return [context.doc.edit(start, end, _render_fitting(context, start, end, change))]


def _render_fitting(context: _Context, start: int, end: int, change: ChangeNode) -> str:
    """The value for ``start:end``, one key per line when one line would outgrow the file's."""
    style, doc = context.style, context.doc
    one_line = render_node(change, style, style.dict_kind)
    if isinstance(change, Branch):
        items: list[tuple[object, ChangeNode]] = list(change.set_items())
    elif isinstance(change.value, dict):
        items = [(key, Leaf(value)) for key, value in change.value.items()]
    else:
        return one_line
    line_start = doc.line_start(start)
    width = (start - line_start) + len(one_line) + (doc.line_end(end) - end)
    if len(items) < 2 or width <= style.line_length:
        return one_line
    line = doc.text[line_start : doc.line_end(line_start)]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return render_dict_multiline(items, style, style.dict_kind, indent)


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
        return [context.doc.edit(start, end, _render_fitting(context, start, end, node))]
    view = dict_view(context.doc, context.positions, value)
    if view is None:
        code = context.doc.text[start:end]
        if node.whole and literal_value(value) is not UNKNOWN:
            return [context.doc.edit(start, end, _render_fitting(context, start, end, node))]
        raise FixNotApplicable(f"`{_dotted(path)}` is set by an expression, not a dict: `{code}`")
    return _edit_dict(context, view, node, path)


def _edit_dict(
    context: _Context,
    view: DictView,
    branch: Branch,
    path: tuple[str, ...],
    *,
    keys_known_absent: bool = False,
) -> list[TextEdit]:
    """Edits in one dict. With ``keys_known_absent`` the loader saw the whole resolved dict, so a
    key it lacks cannot hide in a ``**`` unpacking and may be added beside one."""
    edits: list[TextEdit] = []
    missing: list[tuple[str, ChangeNode]] = []
    removals: list[int] = []
    for key, child in branch.children.items():
        index = view.find(key)
        is_removal = isinstance(child, Leaf) and child.value is REMOVE
        if index is not None and view.opaque and is_removal:
            raise FixNotApplicable(f"`{_dotted((*path, key))}` may also come from `**` unpacking")
        if index is None:
            if view.opaque and not is_removal and not keys_known_absent:
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
    box = _container(view)
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
    context: _Context, module: cst.Module, items: list[tuple[str, ChangeNode]], *, refuse: bool
) -> list[TextEdit]:
    """``name = value`` for names the file does not assign. In a lazy-import config that
    replaces what a base set (nothing merges): right for a value that is not a dict, and for a
    name the config lacks; a dict it imports is changed in place (`_in_place_statements`).
    ``refuse``: a lazy-import config whose resolved keys were not given (the name may be one it
    imports)."""
    statements = []
    for name, node in items:
        if isinstance(node, Leaf) and node.value is REMOVE:
            continue
        if isinstance(node, Branch) and not any(True for _ in node.set_items()):
            continue
        if not is_keyword_name(name):
            raise FixNotApplicable(f"`{name}` cannot be a top-level name in a .py config")
        if refuse:
            raise FixNotApplicable(
                f"`{name}` may come from a lazy import: a new assignment would replace it, not "
                "merge"
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
    base = base_statement(module)
    if base is None:
        return _append_statements(context, statements)
    doc, newline = context.doc, context.doc.newline
    block = (newline + newline).join(statements)
    _start, end = context.offsets(base)
    at = doc.next_line_start(end)
    if at == end:  # `_base_` is the last line and has no line break
        return doc.edit(at, at, newline + newline + block)
    following = doc.text[at : doc.line_end(at)]
    if at == len(doc.text) or following.strip() == "":
        return doc.edit(at, at, newline + block + newline)
    # The file writes the next statement right under `_base_`: do the same.
    return doc.edit(at, at, block + newline)


def _append_statements(context: _Context, statements: list[str]) -> TextEdit:
    """The statements at the end of the file, one blank line after the last statement."""
    doc, newline = context.doc, context.doc.newline
    block = (newline + newline).join(statements)
    text = doc.text
    if text.strip() == "":
        return (
            doc.edit(0, len(text), block + newline)
            if not text
            else doc.edit(len(text), len(text), block + newline)
        )
    if not text.endswith(("\n", "\r")):
        return doc.edit(len(text), len(text), newline + newline + block)
    last_line = text[doc.line_start(len(text) - 1) : len(text)]
    gap = "" if last_line.strip() == "" else newline
    return doc.edit(len(text), len(text), gap + block + newline)
