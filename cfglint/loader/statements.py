"""Module-level statements of a ``.py`` config, interpreted (never executed).

A statement cfglint cannot follow does not stop the file: the names it would assign and the
config data it could change become unknown (see ``effects.py``), and everything else is still
resolved. A statement that fails on known data stops MMEngine: it is reported (CL905), unless a
``try`` around it may catch the exception.
"""

from __future__ import annotations

import ast

from cfglint.codes import MMENGINE_REFUSES, UNREADABLE_CONFIG
from cfglint.loader.builtins_table import EXCEPTION_TYPES, MODULE_CONSTANTS
from cfglint.loader.effects import (
    forget_call,
    forget_values,
    look_up,
    module_level_nodes,
    reachable,
)
from cfglint.loader.expressions import ExpressionEvaluator
from cfglint.loader.limits import MAX_LOOP_STEPS, TOO_MANY_STEPS, check_length
from cfglint.loader.problems import LoadError
from cfglint.loader.values import (
    BaseVar,
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_data,
    copy_unknown,
    from_py,
    thaw,
    to_py,
)
from cfglint.reprs import display_repr
from cfglint.types import DictNode, Origin, ScalarNode, SequenceNode


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _UncertainJump(Exception):
    """A ``break`` or ``continue`` in code cfglint did not follow: it may or may not run."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StatementRunner(ExpressionEvaluator):
    in_try = 0  # how many `try` bodies enclose the statement being run
    loop_steps = 0

    def run(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        try:
            self.execute(node)
        except DefiniteError as error:
            if error.span is None:
                error.span = self.source.span(node)
            if self.in_try:
                raise  # the `try` decides whether MMEngine stops
            message = f"MMEngine would stop here: {error.reason}"
            raise LoadError(MMENGINE_REFUSES, message, error.span) from None

    def execute(self, node: ast.stmt) -> None:
        handler = getattr(self, f"_stmt_{type(node).__name__}", None)
        if handler is None:
            self.forget(node, f"`{type(node).__name__}` statements are not evaluated")
            return
        try:
            handler(node)
        except DefiniteError:
            raise
        except UnknowableError as error:
            self.forget(node, error.reason)
        except (RecursionError, MemoryError):
            self.forget(node, "too deeply nested to evaluate")

    def forget(self, node: ast.stmt, reason: str) -> None:
        """``node`` may have run, in part or whole: everything it could change becomes unknown."""
        unknown = self.unknown(node, reason)
        for inner in module_level_nodes(node):
            self.steps += 10  # forgetting is work too: a loop of unknown steps must run out
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
                self.namespace[inner.id] = copy_unknown(unknown)
            elif isinstance(inner, ast.Subscript | ast.Attribute) and isinstance(
                inner.ctx, ast.Store | ast.Del
            ):
                forget_values(self, reachable(self, inner.value), unknown)
            elif isinstance(inner, ast.AugAssign):  # `p += [...]` extends the list `p` names
                forget_values(self, reachable(self, inner.target), unknown)
            elif isinstance(inner, ast.Call):
                forget_call(self, inner, look_up(self, inner.func), unknown)
            elif isinstance(inner, ast.Import | ast.ImportFrom):
                for name, value in self._import_bindings(inner):
                    maybe_data = not isinstance(value, Opaque)
                    self.namespace[name] = copy_unknown(unknown) if maybe_data else value
            elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self._define(inner)
        if _may_jump(node):
            raise _UncertainJump(reason)

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
            self.set_item(self._config_dict_owner(target, "setting"), target.attr, value)
        else:
            raise UnknowableError("assignment target cfglint does not evaluate")

    def _unpack(self, target: ast.Tuple | ast.List, value: Val) -> None:
        try:
            parts = self.iterate(value)
            if any(isinstance(element, ast.Starred) for element in target.elts):
                raise UnknowableError("starred unpacking is not evaluated")
            if len(parts) != len(target.elts):
                raise DefiniteError(
                    f"ValueError: unpacking {len(parts)} values into {len(target.elts)} names"
                )
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
        if isinstance(owner, VDict | VList) and owner.poison is not None:
            raise UnknowableError(owner.poison.reason, owner.poison)
        return owner

    def _config_dict_owner(self, target: ast.Attribute, action: str) -> VDict:
        """The dict whose attribute ``target`` sets or deletes: only a ConfigDict has them."""
        owner = self._container(target.value)
        if isinstance(owner, VDict) and owner.config_dict:
            return owner
        if isinstance(owner, VDict | VList | ScalarNode | BaseVar):
            raise DefiniteError(
                f"AttributeError: {_type_name(owner)} object has no attribute '{target.attr}' "
                "(only dicts inherited from bases allow attribute access)"
            )
        raise UnknowableError(f"{action} attribute `{target.attr}` of an unknown value")

    def set_item(self, owner: Val, key: object, value: Val) -> None:
        if isinstance(owner, VDict):
            try:
                owner.entries[key] = copy_data(value, "config_dict") if owner.config_dict else value
            except TypeError:
                raise DefiniteError(f"TypeError: unhashable key {display_repr(key)}") from None
        elif isinstance(owner, VList) and not owner.is_tuple:
            if not isinstance(key, int):
                raise DefiniteError(
                    f"TypeError: list indices must be integers, not {display_repr(key)}"
                )
            try:
                owner.items[key] = value
            except IndexError:
                raise DefiniteError(f"IndexError: list index {key} out of range") from None
        elif isinstance(owner, VList | ScalarNode | BaseVar):
            raise DefiniteError(
                f"TypeError: {_type_name(owner)} object does not support item assignment"
            )
        else:
            raise UnknowableError("item assignment on something that is not a known dict or list")

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        current = self.evaluate(target)
        if isinstance(current, DictNode | SequenceNode):
            current = thaw(current)
        operand = self.evaluate(node.value)
        if (
            isinstance(current, VList)
            and not current.is_tuple
            and current.poison is None
            and isinstance(node.op, ast.Add)
        ):
            added = self.iterate(operand)
            check_length(len(current.items), len(added))
            current.items.extend(added)  # `list += ...` extends in place
            return
        if isinstance(current, VDict) and current.poison is None and isinstance(node.op, ast.BitOr):
            if not isinstance(operand, VDict | DictNode):
                raise UnknowableError("`|=` with something that is not a known dict")
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
                if target.id not in self.namespace:
                    raise DefiniteError(f"NameError: name `{target.id}` is not defined")
                del self.namespace[target.id]
            elif isinstance(target, ast.Subscript):
                owner = self._container(target.value)
                if isinstance(target.slice, ast.Slice):
                    raise UnknowableError("slice deletion is not evaluated")
                self._delete_item(owner, to_py(self.evaluate(target.slice)))
            elif isinstance(target, ast.Attribute):
                self._delete_item(self._config_dict_owner(target, "deleting"), target.attr)
            else:
                raise UnknowableError("deletion target cfglint does not evaluate")

    def _delete_item(self, owner: Val, key: object) -> None:
        if isinstance(owner, VDict):
            if key not in owner.entries:
                raise DefiniteError(f"KeyError: {display_repr(key)}")
            del owner.entries[key]
        elif isinstance(owner, VList) and not owner.is_tuple and isinstance(key, int):
            try:
                del owner.items[key]
            except IndexError:
                raise DefiniteError(f"IndexError: list index {key} out of range") from None
        elif isinstance(owner, VList | ScalarNode | BaseVar):
            raise DefiniteError(f"TypeError: {_type_name(owner)} object doesn't support deletion")
        else:
            raise UnknowableError(f"cannot delete {display_repr(key)}")

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
        try:
            for item in items:
                self.assign(node.target, item)
                if not self._loop_iteration(node.body):
                    return
        except _UncertainJump as jump:
            self.forget(node, jump.reason)  # it may have stopped at any iteration
            return
        self.run(node.orelse)

    def _stmt_While(self, node: ast.While) -> None:
        try:
            while to_py(self.evaluate(node.test)):
                if not self._loop_iteration(node.body):
                    return
        except _UncertainJump as jump:
            self.forget(node, jump.reason)
            return
        self.run(node.orelse)

    def _loop_iteration(self, body: list[ast.stmt]) -> bool:
        """Run a loop body once; False when it breaks out of the loop (skipping `else`)."""
        self.loop_steps += 1
        if self.loop_steps > MAX_LOOP_STEPS:
            raise UnknowableError(TOO_MANY_STEPS)
        self.count_step()
        try:
            self.run(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def _stmt_Break(self, node: ast.Break) -> None:
        raise _Break

    def _stmt_Continue(self, node: ast.Continue) -> None:
        raise _Continue

    def _stmt_Assert(self, node: ast.Assert) -> None:
        if not to_py(self.evaluate(node.test)):
            raise DefiniteError(f"AssertionError: `{self.source.segment(node.test)}` is false")

    def _stmt_Raise(self, node: ast.Raise) -> None:
        raised: type[BaseException] | None = RuntimeError  # a bare `raise` with none active
        if node.exc is not None:
            raised = self._builtin_exception(
                node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            )
        raise DefiniteError(f"the config raises: `{self.source.segment(node)}`", raised)

    def _builtin_exception(self, node: ast.expr) -> type[BaseException] | None:
        """The builtin exception class ``node`` names (None: another, or not known)."""
        if isinstance(node, ast.Name) and self.lookup_name(node.id) is None:
            return EXCEPTION_TYPES.get(node.id)
        return None

    def _stmt_Try(self, node: ast.Try) -> None:
        # An exception the handlers do not catch, in the body or in `else`, comes out here:
        # `finally` runs, then it goes on (unless `finally` breaks out of a loop).
        try:
            self.in_try += 1
            try:
                self._try_body(node)
            finally:
                self.in_try -= 1
        except (_Break, _Continue, DefiniteError):
            self.run(node.finalbody)
            raise
        self.run(node.finalbody)

    _stmt_TryStar = _stmt_Try

    def _try_body(self, node: ast.Try) -> None:
        """The body runs until a step that may raise; from there on, nothing is certain, unless
        a known exception meets a handler that certainly catches it: that handler runs."""
        reason: str | None = None
        maybe_run: list[ast.stmt] = []
        for index, statement in enumerate(node.body):
            before = self.unknowns_made
            try:
                self.statement(statement)
            except DefiniteError as error:
                handler = self._certain_handler(node.handlers, error.exception)
                if handler is not None:
                    self._handle(handler, statement)
                    return
                if not any(self._may_catch(handler, error.exception) for handler in node.handlers):
                    raise  # MMEngine stops, once `finally` has run
                reason = f"an exception in the `try` body ({error.reason}) may be caught"
                break
            if self.unknowns_made != before:
                reason = "a step of the `try` body that cfglint could not follow may raise"
                maybe_run = [*node.body[index + 1 :], *node.orelse]
                break
        if reason is None:
            self.run(node.orelse)
        else:
            for handler in node.handlers:
                maybe_run.extend(handler.body)
            for statement in maybe_run:
                self.forget(statement, reason)

    def _certain_handler(
        self, handlers: list[ast.ExceptHandler], raised: type[BaseException] | None
    ) -> ast.ExceptHandler | None:
        """The handler that catches `raised` for sure: the first whose kinds cfglint knows
        and that matches; None when a handler of a kind cfglint does not know comes first."""
        if raised is None:
            return None
        for handler in handlers:
            if handler.type is None:
                return handler
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            caught = [self._builtin_exception(kind) for kind in kinds]
            if any(kind is None for kind in caught):
                return None
            if any(kind is not None and issubclass(raised, kind) for kind in caught):
                return handler
        return None

    def _handle(self, handler: ast.ExceptHandler, raising: ast.stmt) -> None:
        """Run a handler; Python unbinds `except ... as name` when the handler ends."""
        if handler.name is not None:
            self.assign(ast.Name(handler.name, ast.Store()), self.unknown(raising, "the exception"))
        self.run(handler.body)
        if handler.name is not None:
            self.namespace.pop(handler.name, None)

    def _may_catch(self, handler: ast.ExceptHandler, raised: type[BaseException] | None) -> bool:
        if handler.type is None or raised is None:
            return True
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for kind in kinds:
            caught = self._builtin_exception(kind)
            if caught is None or issubclass(raised, caught):
                return True
        return False

    # -- definitions and imports ------------------------------------------------------------

    def _stmt_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for name, value in self._import_bindings(node):
            self.namespace[name] = value

    _stmt_ImportFrom = _stmt_Import

    def _import_bindings(self, node: ast.Import | ast.ImportFrom) -> list[tuple[str, Val]]:
        origin = self.origin(node)
        bindings: list[tuple[str, Val]] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    bindings.append((alias.asname, Opaque("module", alias.name, origin)))
                else:
                    top = alias.name.split(".")[0]
                    bindings.append((top, Opaque("module", top, origin)))
            return bindings
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                raise LoadError(
                    UNREADABLE_CONFIG,
                    f"`from {module} import *`: cfglint cannot tell which names it binds, and "
                    "MMEngine keeps every one that is not a module or a function as a config key",
                    self.source.span(node),
                )
            qualified = f"{module}.{alias.name}"
            value = _imported(qualified, origin)
            bindings.append((alias.asname or alias.name, value))
        return bindings

    def _stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.item(default)  # evaluated when the function is defined
        self._define(node)

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef) -> None:
        self._define(node)

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        code = Opaque(kind, node.name, self.origin(node), py=node)
        self.file_code[id(node)] = code
        if node.decorator_list or (isinstance(node, ast.ClassDef) and _runs_code(node)):
            # A decorator is a call, and a class body runs: both may change anything `code`
            # reaches, and what the name ends up bound to is not known.
            unknown = self.unknown(node, f"`{node.name}`: decorated, or a class body that runs")
            forget_values(self, [code], unknown)
            for expression in node.decorator_list:
                forget_values(self, reachable(self, expression), unknown)
            if node.decorator_list:
                self.namespace[node.name] = copy_unknown(unknown)
                return
        self.namespace[node.name] = code

    def _stmt_Global(self, node: ast.Global) -> None:
        return

    _stmt_Nonlocal = _stmt_Global


def _imported(qualified: str, origin: Origin) -> Val:
    if qualified in MODULE_CONSTANTS:
        return from_py(MODULE_CONSTANTS[qualified], origin)
    return Opaque("import", qualified, origin)


def _type_name(value: Val) -> str:
    if isinstance(value, VDict):
        return "'dict'"
    if isinstance(value, VList):
        return "'tuple'" if value.is_tuple else "'list'"
    if isinstance(value, ScalarNode):
        return f"'{type(value.value).__name__}'"
    return "'str'"  # a `{{_base_.x}}`, a string while the file runs


def _runs_code(node: ast.ClassDef) -> bool:
    """Whether defining the class runs more than plain definitions (bases, a body with calls)."""
    if node.bases or node.keywords:
        return True
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.decorator_list or any(
                default is not None
                for default in [*statement.args.defaults, *statement.args.kw_defaults]
            ):
                return True
        elif not _plain_class_line(statement):
            return True
    return False


def _plain_class_line(statement: ast.stmt) -> bool:
    """A docstring, ``pass`` or an assignment of constants and names."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)
    return isinstance(statement, ast.Assign | ast.AnnAssign) and all(
        isinstance(inner, ast.Constant | ast.Name | ast.expr_context | ast.Assign | ast.AnnAssign)
        for inner in ast.walk(statement)
    )


def _may_jump(node: ast.stmt) -> bool:
    """Whether ``node`` holds a ``break``/``continue`` of a loop around it."""
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Break | ast.Continue):
            return True
        if isinstance(current, ast.For | ast.While | ast.AsyncFor):
            pending.extend(current.orelse)  # a jump in the body belongs to that loop
            continue
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        pending.extend(ast.iter_child_nodes(current))
    return False
