"""What MMEngine decides from a ``.py`` config's syntax tree before running it."""

from __future__ import annotations

import ast
import sys
from collections import deque
from collections.abc import Iterator
from typing import Literal

_STDLIB = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)


def is_builtin_module(module: str) -> bool:
    # cfglint decides from the name alone (MMEngine asks the import system where it lives).
    if module.startswith("."):
        return False
    if module.startswith("mmengine.config"):
        return True
    return module.split(".")[0] in _STDLIB


ConfigStyle = Literal["plain", "lazy", "bad-with"]

# Where statements can be: every node MMEngine's walk below stops at is a statement.
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements_breadth_first(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes `ast.walk` yields that are statements, in its order, without walking into
    expressions (most of a config; no statement is ever inside one): dropping the nodes below
    no statement changes neither the depth nor the order of the rest."""
    queue: deque[ast.AST] = deque([tree])
    while queue:
        node = queue.popleft()
        queue.extend(
            child for child in ast.iter_child_nodes(node) if isinstance(child, _HOLDS_STATEMENTS)
        )
        yield node


def config_style(tree: ast.Module, text: str) -> ConfigStyle:
    """MMEngine's ``Config._is_lazy_import``, walked in the same (breadth-first) order."""
    if "import" not in text and "with" not in text:
        return "plain"  # nothing below can match: skip walking the tree
    for node in _statements_breadth_first(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "_base_"
        ):
            return "plain"
        if isinstance(node, ast.With):
            expr = node.items[0].context_expr
            if (
                not isinstance(expr, ast.Call)
                or not isinstance(expr.func, ast.Name)
                or expr.func.id != "read_base"
            ):
                return "bad-with"
            return "lazy"
        if isinstance(node, ast.ImportFrom):
            if node.level != 0:
                return "lazy"
            if (
                node.module == "mmengine"
                and len(node.names) == 1
                and node.names[0].name == "Config"
            ):
                continue
            if node.module is not None and not is_builtin_module(node.module):
                return "lazy"
        if isinstance(node, ast.Import) and any(
            not is_builtin_module(alias.name) for alias in node.names
        ):
            return "lazy"
    return "plain"


def base_assignment(tree: ast.Module) -> ast.Assign | None:
    """The first top-level ``_base_ = ...`` (the one MMEngine reads the base list from)."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "_base_"
        ):
            return node
    return None
