"""The editor's positions and scan of a `.py` file: the positions are what libcst's
`MetadataWrapper.resolve` gives, and the scan (what style a fix writes, where the dicts are),
read from them instead of visiting the tree, finds what a visitor of the tree finds, in the same
order (the first dict decides the indentation a fix writes)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from corpus import ensure_corpus
from helpers import EXAMPLES
from libcst.metadata import MetadataWrapper, PositionProvider

from cfglint.fix.py_scan import positions_of, scan_module

TESTS = Path(__file__).resolve().parent.parent


class _Visited(cst.CSTVisitor):
    """The reference: libcst's own walk of the tree, each node as it is entered."""

    def __init__(self) -> None:
        self.quotes: Counter[str] = Counter()
        self.dict_calls: list[int] = []
        self.dict_literals: list[int] = []
        self.uses_read_base = False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if len(node.quote) == 1:
            self.quotes[node.quote] += 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            if node.func.value == "dict":
                self.dict_calls.append(id(node))
            elif node.func.value == "read_base":
                self.uses_read_base = True

    def visit_Dict(self, node: cst.Dict) -> None:
        self.dict_literals.append(id(node))


def _differs(text: str) -> bool:
    """Whether the scan differs from the visitor (a file libcst cannot take at this stack
    depth, which the editor runs deeper, or that does not parse, is left out)."""
    try:
        module = cst.parse_module(text)
        positions = positions_of(module)
        resolved = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        visited = _Visited()
        module.visit(visited)
    except (cst.ParserSyntaxError, RecursionError):
        return False
    if dict(positions) != dict(resolved):  # the provider's own answer is the wrapper's
        return True
    scan = scan_module(positions)
    found = (
        scan.quotes,
        [id(node) for node in scan.dict_calls],
        [id(node) for node in scan.dict_literals],
        scan.uses_read_base,
    )
    return found != (
        visited.quotes,
        visited.dict_calls,
        visited.dict_literals,
        visited.uses_read_base,
    )


NESTED = """\
from mmengine.config import read_base

with read_base():
    from .._base_.runtime import *

model = dict(type="M", head=dict(cfg={"a": dict(b={'c': 1})}), neck=[dict(x=1), {"y": 2}])
pipeline = [dict(type='A'), dict(type='B', keys=dict(a=1)), {'k': {"v": dict()}}]
f = dict(dict(a=1), b=2)(3)
g = {'a': 'b', "c": "d", 'e': f"{dict(z=1)}"}
"""


def test_nested_dicts_and_strings_are_found_as_a_visitor_finds_them() -> None:
    assert not _differs(NESTED)


def test_every_config_and_script_of_the_examples_and_the_tests() -> None:
    files = sorted(
        {
            *EXAMPLES.rglob("*.py"),
            *(path for path in TESTS.rglob("*.py") if "configs" in path.parts),
            *TESTS.glob("*/entry_scripts/*.py"),
        }
    )
    assert len(files) > 30
    assert [path for path in files if _differs(path.read_text(encoding="utf-8"))] == []


@pytest.mark.corpus
def test_every_config_of_the_corpus() -> None:
    leaves = ensure_corpus().config_roots
    files = sorted(path for root in leaves for path in root.rglob("*.py"))
    assert len(files) > 2000
    assert [path for path in files if _differs(path.read_text(encoding="utf-8"))] == []
