"""Module-level statements of a ``.py`` config, interpreted (never executed).

A statement cfglint cannot follow does not stop the file: the names it would assign (and the
config data it would change) become unknown, and everything else is still resolved.
"""

from __future__ import annotations

import ast
import contextlib

from cfglint.loader.builtins_table import MODULE_CONSTANTS, MUTATING_METHODS
from cfglint.loader.calls import poison
from cfglint.loader.expressions import ExpressionEvaluator
from cfglint.loader.problems import LoadError
from cfglint.loader.values import (
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    as_config_dict,
    from_py,
    thaw,
    to_py,
)
from cfglint.types import DictNode, SequenceNode, UnknownNode

_MAX_LOOP_STEPS = 100_000


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class StatementRunner(ExpressionEvaluator):
    steps = 0

    def run(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        handler = getattr(self, f"_stmt_{type(node).__name__}", None)
        if handler is None:
            self._unknown_assignments(node, f"`{type(node).__name__}` statements are not evaluated")
            return
        try:
            handler(node)
        except DefiniteError as error:
            raise LoadError(
                "CL905", f"MMEngine would stop here: {error.reason}", self.source.span(node)
            ) from None
        except UnknowableError as error:
            self._unknown_assignments(node, error.reason)
        except RecursionError:
            self._unknown_assignments(node, "too deeply nested to evaluate")

    def _unknown_assignments(self, node: ast.stmt, reason: str) -> None:
        """Every name the statement could bind becomes unknown, and data it could change."""
        unknown = self.unknown(node, reason)
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                self.namespace[inner.id] = UnknownNode(unknown.source, reason, unknown.origin)
            elif isinstance(inner, ast.Subscript | ast.Attribute) and isinstance(
                inner.ctx, ast.Store | ast.Del
            ):
                self._poison_target(inner.value, unknown)
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                if inner.func.attr in MUTATING_METHODS:
                    self._poison_target(inner.func.value, unknown)
            elif isinstance(inner, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef):
                for name in _defined_names(inner):
                    self.namespace.pop(name, None)

    def _poison_target(self, node: ast.expr, unknown: UnknownNode) -> None:
        with contextlib.suppress(UnknowableError):
            poison(self.evaluate(node), unknown)

    # -- assignments -------------------------------------------------------------------------

    def _stmt_Assign(self, node: ast.Assign) -> None:
        first = node.targets[0]
        if isinstance(first, ast.Name) and first.id == "_base_":
            return  # MMEngine removes `_base_ = ...` before running the file
        value = self.item(node.value)
        for target in node.targets:
            self.assign(target, value)

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.item(node.value))

    def assign(self, target: ast.expr, value: Val) -> None:
        if isinstance(target, ast.Name):
            self.namespace[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            self._unpack(target, value)
        elif isinstance(target, ast.Subscript):
            owner = self._container(target.value)
            if isinstance(target.slice, ast.Slice):
                raise UnknowableError("slice assignment is not evaluated")
            self.set_item(owner, to_py(self.evaluate(target.slice)), value)
        elif isinstance(target, ast.Attribute):
            owner = self._container(target.value)
            if not isinstance(owner, VDict):
                raise UnknowableError(f"setting attribute `{target.attr}` of a non-dict")
            self.set_item(owner, target.attr, value)
        else:
            raise UnknowableError("assignment target cfglint does not evaluate")

    def _unpack(self, target: ast.Tuple | ast.List, value: Val) -> None:
        try:
            parts = self.iterate(value)
            if any(isinstance(element, ast.Starred) for element in target.elts):
                raise UnknowableError("starred unpacking is not evaluated")
            if len(parts) != len(target.elts):
                raise UnknowableError("unpacking a different number of values")
        except DefiniteError:
            raise
        except UnknowableError as error:
            for element in target.elts:
                inner = element.value if isinstance(element, ast.Starred) else element
                self.assign(inner, self.unknown(element, error.reason))
            return
        for element, part in zip(target.elts, parts, strict=True):
            self.assign(element, part)

    def _container(self, node: ast.expr) -> Val:
        owner = self.evaluate(node)
        if isinstance(owner, DictNode | SequenceNode):
            owner = thaw(owner)
        return owner

    def set_item(self, owner: Val, key: object, value: Val) -> None:
        if isinstance(owner, VDict):
            owner.entries[key] = as_config_dict(value) if owner.config_dict else value
        elif isinstance(owner, VList) and not owner.is_tuple and isinstance(key, int):
            try:
                owner.items[key] = value
            except IndexError:
                raise UnknowableError(f"list index {key} out of range") from None
        else:
            raise UnknowableError("item assignment on something that is not a known dict or list")

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        current = self.evaluate(target)
        operand = self.evaluate(node.value)
        if isinstance(current, VList) and not current.is_tuple and isinstance(node.op, ast.Add):
            current.items.extend(self.iterate(operand))  # `list += ...` extends in place
            return
        if isinstance(current, VDict) and isinstance(node.op, ast.BitOr):
            current.entries.update(self.mapping_entries(operand))
            return
        result = self.binary(node, type(node.op), current, operand)
        if isinstance(target, ast.Name):
            self.namespace[target.id] = result
        else:
            self.assign(target, result)

    def _stmt_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.namespace.pop(target.id, None)
            elif isinstance(target, ast.Subscript | ast.Attribute):
                owner = self._container(target.value)
                key: object = target.attr if isinstance(target, ast.Attribute) else None
                if isinstance(target, ast.Subscript):
                    if isinstance(target.slice, ast.Slice):
                        raise UnknowableError("slice deletion is not evaluated")
                    key = to_py(self.evaluate(target.slice))
                self._delete_item(owner, key)
            else:
                raise UnknowableError("deletion target cfglint does not evaluate")

    def _delete_item(self, owner: Val, key: object) -> None:
        if isinstance(owner, VDict) and key in owner.entries:
            del owner.entries[key]
        elif isinstance(owner, VList) and not owner.is_tuple and isinstance(key, int):
            del owner.items[key]
        else:
            raise UnknowableError(f"cannot delete {key!r}")

    # -- expressions as statements, control flow -----------------------------------------

    def _stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):
            return  # docstrings
        self.evaluate(node.value)

    def _stmt_Pass(self, node: ast.Pass) -> None:
        return

    def _stmt_If(self, node: ast.If) -> None:
        test = self.evaluate(node.test)
        self.run(node.body if to_py(test) else node.orelse)

    def _stmt_For(self, node: ast.For) -> None:
        items = self.iterate(self.evaluate(node.iter))
        for item in items:
            self.assign(node.target, item)
            if not self._loop_iteration(node.body):
                return
        self.run(node.orelse)

    def _stmt_While(self, node: ast.While) -> None:
        while to_py(self.evaluate(node.test)):
            if not self._loop_iteration(node.body):
                return
        self.run(node.orelse)

    def _loop_iteration(self, body: list[ast.stmt]) -> bool:
        """Run a loop body once; False when it breaks out of the loop (skipping `else`)."""
        self._count_step()
        try:
            self.run(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def _count_step(self) -> None:
        self.steps += 1
        if self.steps > _MAX_LOOP_STEPS:
            raise UnknowableError("loop too long to evaluate")

    def _stmt_Break(self, node: ast.Break) -> None:
        raise _Break

    def _stmt_Continue(self, node: ast.Continue) -> None:
        raise _Continue

    def _stmt_Assert(self, node: ast.Assert) -> None:
        return  # MMEngine would stop on a failing assert; cfglint does not guess either way

    # -- definitions and imports ------------------------------------------------------------

    def _stmt_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname is not None:
                self.namespace[alias.asname] = Opaque("module", alias.name, self.origin(node))
            else:
                top = alias.name.split(".")[0]
                self.namespace[top] = Opaque("module", top, self.origin(node))

    def _stmt_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            qualified = f"{module}.{alias.name}"
            name = alias.asname or alias.name
            if qualified in MODULE_CONSTANTS:
                self.namespace[name] = from_py(MODULE_CONSTANTS[qualified], self.origin(node))
            else:
                self.namespace[name] = Opaque("import", qualified, self.origin(node))

    def _stmt_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.namespace[node.name] = Opaque("function", node.name, self.origin(node))

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef) -> None:
        self.namespace[node.name] = Opaque("class", node.name, self.origin(node))

    def _stmt_Global(self, node: ast.Global) -> None:
        return

    _stmt_Nonlocal = _stmt_Global


def _defined_names(node: ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return [node.name]
    return [alias.asname or alias.name.split(".")[0] for alias in node.names]
