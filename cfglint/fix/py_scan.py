"""One pass over a module collecting what the editor asks about (matchers' findall is slow)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst


@dataclass
class Scan:
    quotes: Counter[str] = field(default_factory=Counter)
    dict_calls: list[cst.Call] = field(default_factory=list)
    dict_literals: list[cst.Dict] = field(default_factory=list)
    uses_read_base: bool = False


class _Scanner(cst.CSTVisitor):
    def __init__(self) -> None:
        self.scan = Scan()

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if len(node.quote) == 1:
            self.scan.quotes[node.quote] += 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            if node.func.value == "dict":
                self.scan.dict_calls.append(node)
            elif node.func.value == "read_base":
                self.scan.uses_read_base = True

    def visit_Dict(self, node: cst.Dict) -> None:
        self.scan.dict_literals.append(node)


def scan_module(module: cst.Module) -> Scan:
    scanner = _Scanner()
    module.visit(scanner)
    return scanner.scan


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
