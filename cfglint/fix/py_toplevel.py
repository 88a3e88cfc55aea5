"""Module-level facts about a ``.py`` config: where a name is assigned, where ``_base_`` ends."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.py_scan import names_in


@dataclass(frozen=True, slots=True)
class Assignment:
    statement: cst.SimpleStatementLine
    value: cst.BaseExpression


def _names_in(node: cst.CSTNode, name: str) -> bool:
    return name in names_in(node)


# isinstance, not libcst.matchers: importing the matchers builds a class for every node kind
# (about half a second, for every `fix` and every report with edits).
def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _calls_a_method_of(node: cst.BaseExpression, name: str) -> bool:
    """`name.method(...)`."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and _is_name(node.func.value, name)
    )


def _assigns(small: cst.BaseSmallStatement, name: str) -> bool | None:
    """True: a plain ``name = value``; False: some other write to ``name``; None: no write."""
    if isinstance(small, cst.Assign):
        targets = [target.target for target in small.targets]
        if len(targets) == 1 and _is_name(targets[0], name):
            return True
        return False if any(_names_in(target, name) for target in targets) else None
    if isinstance(small, cst.AnnAssign) and _is_name(small.target, name):
        return small.value is not None
    if isinstance(small, cst.AugAssign | cst.Del | cst.AnnAssign):
        target = small.target
        return False if _names_in(target, name) else None
    if isinstance(small, cst.Expr) and _calls_a_method_of(small.value, name):
        return False  # name.update(...), name.pop(...)
    if isinstance(small, cst.Import | cst.ImportFrom):
        return False if _names_in(small, name) else None
    return None


def find_assignment(module: cst.Module, name: str) -> Assignment | None:
    """The last module-level ``name = value``, or None when the file never assigns ``name``.

    Raises FixNotApplicable when the value is written some other way (inside a block, by
    unpacking, with ``+=``, ``.update()`` or an import), since editing the literal would not
    change what the config ends up with.
    """
    found: Assignment | None = None
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            if not isinstance(statement, cst.FunctionDef | cst.ClassDef) and _names_in(
                statement, name
            ):
                raise FixNotApplicable(f"`{name}` is used inside a block statement")
            continue
        for small in statement.body:
            kind = _assigns(small, name)
            if kind is None:
                continue
            if kind is False:
                raise FixNotApplicable(f"`{name}` is not set by a plain assignment")
            assert isinstance(small, cst.Assign | cst.AnnAssign) and small.value is not None
            if len(statement.body) != 1:
                raise FixNotApplicable(f"`{name}` is assigned on a line with other statements")
            found = Assignment(statement, small.value)
    return found


def count_assignments(module: cst.Module, name: str) -> int:
    return sum(
        1
        for statement in module.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if _assigns(small, name)
    )


def base_statement(module: cst.Module) -> cst.SimpleStatementLine | None:
    """The last module-level statement that sets ``_base_``."""
    found = None
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine) and any(
            _assigns(small, "_base_") is not None for small in statement.body
        ):
            found = statement
    return found
