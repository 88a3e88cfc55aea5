"""Find the expression the loader named by its span, and the dict entry that holds it.

The loader's origin of a value is the span of the expression that wrote it (Python's ``ast``
positions: parentheses excluded), wherever that is: a top-level assignment, a variable read
later, the argument of ``.update()``, an item assignment, a parenthesised dict.
"""

from __future__ import annotations

import libcst as cst

from cfglint.fix.py_dicts import DictView, Positions, dict_view, node_offsets
from cfglint.fix.py_scan import Scan
from cfglint.fix.text import TextDoc


class ExpressionIndex:
    """Every expression of a module by its offsets, and every dict entry by its value."""

    def __init__(self, doc: TextDoc, positions: Positions, scan: Scan) -> None:
        self._by_offsets: dict[tuple[int, int], cst.BaseExpression] = {}
        for node in positions:
            if isinstance(node, cst.BaseExpression):
                self._by_offsets.setdefault(node_offsets(doc, positions, node), node)
        self._entries: dict[int, tuple[DictView, int]] = {}
        for container in [*scan.dict_calls, *scan.dict_literals]:
            view = dict_view(doc, positions, container)
            if view is None:
                continue
            for index, element in enumerate(view.elements):
                if element.value is not None:
                    self._entries[id(element.value)] = (view, index)

    def at(self, start: int, end: int) -> cst.BaseExpression | None:
        return self._by_offsets.get((start, end))

    def entry_of(self, value: cst.BaseExpression) -> tuple[DictView, int] | None:
        """The dict holding ``value`` as an entry's value, and the entry's index."""
        return self._entries.get(id(value))
