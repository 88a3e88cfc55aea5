"""Read a ``.py`` config's habits: quotes, dict spelling, indentation, multi-line dicts."""

from __future__ import annotations

from collections import Counter

import libcst as cst

from cfglint.fix.py_dicts import Positions, dict_view
from cfglint.fix.py_render import DictKind, PyStyle
from cfglint.fix.py_scan import Scan
from cfglint.fix.text import TextDoc

DEFAULT_INDENT = "    "
# PEP 8's limit: a file whose lines are all shorter is still allowed lines this long.
MIN_LINE_LENGTH = 79


def read_style(module: cst.Module, scan: Scan, doc: TextDoc, positions: Positions) -> PyStyle:
    calls, literals = scan.dict_calls, scan.dict_literals
    dict_kind: DictKind = "literal" if len(literals) > len(calls) else "call"
    indent_unit = DEFAULT_INDENT
    trailing = Counter[bool]()
    for node in [*calls, *literals]:
        view = dict_view(doc, positions, node)
        if view is None or not view.elements:
            continue
        first, last = view.elements[0], view.elements[-1]
        inner = doc.indent_before(first.start)
        outer = doc.indent_before(view.close_start)
        if inner is not None and outer is not None:
            first_seen = indent_unit is DEFAULT_INDENT
            if first_seen and inner.startswith(outer) and len(inner) > len(outer):
                indent_unit = inner[len(outer) :]
            trailing[last.comma_end is not None] += 1
    return PyStyle(
        quote='"' if scan.quotes['"'] > scan.quotes["'"] else "'",
        dict_kind=dict_kind,
        indent_unit=indent_unit,
        newline=doc.newline,
        multiline_dicts=_top_level_multiline(module, doc, positions),
        trailing_comma=trailing[True] >= trailing[False],
        line_length=max([MIN_LINE_LENGTH, *map(len, doc.text.splitlines())]),
    )


def _top_level_multiline(module: cst.Module, doc: TextDoc, positions: Positions) -> bool:
    """Whether most top-level dict assignments with two or more keys span several lines."""
    votes = Counter[bool]()
    for statement in module.body:
        # One assignment alone on its line (isinstance, not libcst.matchers: see py_toplevel).
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        assign = statement.body[0]
        if not isinstance(assign, cst.Assign):
            continue
        view = dict_view(doc, positions, assign.value)
        if view is None or len(view.elements) < 2:
            continue
        votes[doc.line_of(view.open_end) != doc.line_of(view.close_start)] += 1
    return votes[True] > votes[False]
