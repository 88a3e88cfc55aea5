"""What code cfglint does not follow could change, marked unknown: nothing is guessed.

One rule for every call and statement the evaluator does not model: each dict and list the code
can reach becomes unknown, all the way down. Reach is found without evaluating anything that
could itself change state (only names, attributes and constant subscripts are looked up):

- a call: everything reachable from its receiver and its arguments; a function or class the
  file defines (called, or handed to the code) adds everything *it* can reach: the module-level
  names it mentions, transitively, or every module-level value when it uses ``globals()``,
  ``eval`` and the like. A callee cfglint cannot even identify may be any function of the file.
- a builtin that never changes its arguments (``len``, ``sorted``...) adds only the reach of
  functions handed to it (``sorted(x, key=f)`` runs ``f``).
- a statement that is not evaluated (a branch on an unknown condition, a ``try`` body after an
  unknown step): the names it binds, the containers it assigns into or extends in place
  (``p += [...]`` changes the list ``p`` names), and the calls in it, by the rules above.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from cfglint.loader.builtins_table import (
    MUTATING_METHODS,
    PURE_BUILTINS,
    PURE_MODULE_FUNCTIONS,
    VALUE_BUILTINS,
)
from cfglint.loader.values import (
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_unknown,
    poison_deep,
)
from cfglint.types import UnknownNode

if TYPE_CHECKING:
    from cfglint.loader.expressions import ExpressionEvaluator

# Builtins that change none of their arguments (functions handed to them still run). Of the
# builtins evaluated on values, `getattr` and `next` hand out a value (a bound method, an item)
# that the code may go on to change.
SAFE_BUILTINS = (
    frozenset(PURE_BUILTINS)
    | (VALUE_BUILTINS - {"getattr", "next"})
    | frozenset(
        {
            "issubclass",
            "id",
            "open",
            "input",
            "compile",
            "object",
            "bytes",
            "bytearray",
            "complex",
        }
    )
)
# Builtins that reach the module's namespace itself.
DYNAMIC_BUILTINS = frozenset({"eval", "exec", "globals", "locals", "vars", "__import__"})
_DYNAMIC_ATTRIBUTES = frozenset(
    {"__globals__", "__dict__", "f_globals", "f_locals", "f_back", "__builtins__", "gi_frame"}
)
_COPIERS = frozenset({"copy.deepcopy", "copy.copy"})


class _Everything(Exception):
    """The code can reach every module-level value."""


def is_file_code(value: object) -> bool:
    """A function, lambda or class the file defines (its ast node is kept)."""
    return (
        isinstance(value, Opaque) and value.kind in ("function", "class") and value.py is not None
    )


def forget_call(
    evaluator: ExpressionEvaluator, call: ast.Call, callee: Val | None, unknown: UnknownNode
) -> None:
    """``call`` was not evaluated (``callee``: what it calls, None when not known)."""
    try:
        _forget_call(evaluator, call, callee, unknown, set())
    except _Everything:
        forget_everything(evaluator, unknown)


def _forget_call(
    evaluator: ExpressionEvaluator,
    call: ast.Call,
    callee: Val | None,
    unknown: UnknownNode,
    seen: set[int],
) -> None:
    # `seen`: the function nodes whose reach this pass has marked already.
    arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
    if isinstance(callee, Opaque) and callee.kind == "builtin":
        if callee.name in DYNAMIC_BUILTINS:
            raise _Everything
        if callee.name in SAFE_BUILTINS:
            _forget_code_in(evaluator, arguments, unknown, seen)
            return
    elif isinstance(callee, Opaque) and callee.kind == "method":
        if isinstance(callee.bound, VDict | VList) and callee.name in MUTATING_METHODS:
            _poison(evaluator, callee.bound, unknown)
        _forget_code_in(evaluator, arguments, unknown, seen)
        return
    elif isinstance(callee, Opaque) and callee.kind in ("module", "import"):
        if callee.name in PURE_MODULE_FUNCTIONS or callee.name in _COPIERS:
            _forget_code_in(evaluator, arguments, unknown, seen)
            return
    elif is_file_code(callee):
        assert isinstance(callee, Opaque)
        _forget_values(evaluator, [callee], unknown, seen)
    elif callee is None or isinstance(callee, UnknownNode):
        # It may be any function of the file, under a name cfglint lost track of.
        _forget_values(evaluator, list(evaluator.file_code.values()), unknown, seen)
    values: list[Val] = []
    for argument in [call.func, *arguments]:
        values.extend(reachable(evaluator, argument))
    _forget_values(evaluator, values, unknown, seen)


def forget_values(evaluator: ExpressionEvaluator, values: list[Val], unknown: UnknownNode) -> None:
    """The containers in ``values`` (and what functions among them reach) become unknown."""
    try:
        _forget_values(evaluator, values, unknown, set())
    except _Everything:
        forget_everything(evaluator, unknown)


def _forget_code_in(
    evaluator: ExpressionEvaluator,
    arguments: list[ast.expr],
    unknown: UnknownNode,
    seen: set[int],
) -> None:
    for argument in arguments:
        if isinstance(argument, ast.Lambda):
            _forget_function_node(evaluator, argument, unknown, seen)
            continue
        found = [value for value in reachable(evaluator, argument) if is_file_code(value)]
        _forget_values(evaluator, found, unknown, seen)


def _forget_values(
    evaluator: ExpressionEvaluator, values: list[Val], unknown: UnknownNode, seen: set[int]
) -> None:
    for value in values:
        if isinstance(value, VDict | VList):
            _poison(evaluator, value, unknown)
        elif isinstance(value, Opaque) and value.kind == "method":
            if isinstance(value.bound, VDict | VList):
                _poison(evaluator, value.bound, unknown)
        elif is_file_code(value):
            assert isinstance(value, Opaque)
            node = value.py
            assert isinstance(node, ast.AST)
            _forget_function_node(evaluator, node, unknown, seen)


def _forget_function_node(
    evaluator: ExpressionEvaluator, node: ast.AST, unknown: UnknownNode, seen: set[int]
) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    names, rebound, dynamic = _mentions(evaluator, node)
    if dynamic:
        raise _Everything
    for name in rebound:  # `global name` inside: the function may rebind it
        evaluator.namespace[name] = copy_unknown(unknown)
    values = [evaluator.namespace[name] for name in names if name in evaluator.namespace]
    _forget_values(evaluator, values, unknown, seen)


def _mentions(
    evaluator: ExpressionEvaluator, node: ast.AST
) -> tuple[frozenset[str], frozenset[str], bool]:
    """The names a function or class mentions, those it declares global, and whether it
    reaches the module's namespace itself; read once per definition."""
    cached = evaluator.code_mentions.get(id(node))
    if cached is not None:
        return cached
    names: set[str] = set()
    rebound: set[str] = set()
    dynamic = False
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            names.add(inner.id)
            dynamic = dynamic or inner.id in DYNAMIC_BUILTINS
        elif isinstance(inner, ast.Attribute):
            dynamic = dynamic or inner.attr in _DYNAMIC_ATTRIBUTES
        elif isinstance(inner, ast.Global):
            rebound.update(inner.names)
    found = (frozenset(names), frozenset(rebound), dynamic)
    evaluator.code_mentions[id(node)] = found
    return found


def forget_everything(evaluator: ExpressionEvaluator, unknown: UnknownNode) -> None:
    """``exec``, ``globals()``...: any module-level name may have changed."""
    for name, value in list(evaluator.namespace.items()):
        if isinstance(value, VDict | VList):
            _poison(evaluator, value, unknown)
        elif not isinstance(value, Opaque):
            evaluator.namespace[name] = copy_unknown(unknown)


def _poison(evaluator: ExpressionEvaluator, value: VDict | VList, unknown: UnknownNode) -> None:
    # Counted in the work budget: past it, the evaluator computes nothing more.
    evaluator.work += poison_deep(value, unknown)


def _is_path(node: ast.expr) -> bool:
    """A name, attribute or constant-subscript chain: looking it up changes nothing."""
    while True:
        if isinstance(node, ast.Name):
            return True
        constant_key = isinstance(node, ast.Subscript) and isinstance(
            node.slice, ast.Constant | ast.Name
        )
        if not (constant_key or isinstance(node, ast.Attribute | ast.Starred)):
            return False
        assert isinstance(node, ast.Attribute | ast.Subscript | ast.Starred)
        node = node.value


def look_up(evaluator: ExpressionEvaluator, node: ast.expr) -> Val | None:
    """The value of a path expression (None when it is not one, or fails)."""
    if not _is_path(node):
        return None
    try:
        return evaluator.evaluate(node.value if isinstance(node, ast.Starred) else node)
    except (UnknowableError, RecursionError):
        return None


def reachable(evaluator: ExpressionEvaluator, node: ast.expr) -> list[Val]:
    """The values ``node`` refers to, found without running anything."""
    if isinstance(node, ast.Lambda):
        code = Opaque("function", "<lambda>", evaluator.origin(node), py=node)
        return [code]
    if _is_path(node):
        value = look_up(evaluator, node)
        if value is not None:
            return [value]
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            return reachable(evaluator, node.value)
        return []
    found: list[Val] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            found.extend(reachable(evaluator, child))
        elif isinstance(child, ast.keyword | ast.comprehension):
            for part in ast.iter_child_nodes(child):
                if isinstance(part, ast.expr):
                    found.extend(reachable(evaluator, part))
    return found


def module_level_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a statement that act at module level when it runs.

    Function and lambda bodies run only when called, and comprehension variables are local;
    a class body runs at once, but the names it binds are the class's.
    """
    pending: list[tuple[ast.AST, bool]] = [(node, True)]
    while pending:
        current, module_scope = pending.pop()
        if isinstance(current, ast.Name) and not module_scope:
            continue
        yield current
        if isinstance(current, ast.NamedExpr):  # `:=` binds in the enclosing (module) scope
            pending.extend(((current.target, True), (current.value, module_scope)))
            continue
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            arguments = current.args
            for default in [*arguments.defaults, *arguments.kw_defaults]:
                if default is not None:
                    pending.append((default, module_scope))
            if not isinstance(current, ast.Lambda):
                pending.extend((decorator, module_scope) for decorator in current.decorator_list)
            continue
        if isinstance(current, ast.ClassDef):
            pending.extend((child, False) for child in ast.iter_child_nodes(current))
            continue
        if isinstance(current, ast.comprehension):
            pending.append((current.iter, module_scope))
            pending.extend((condition, False) for condition in current.ifs)
            continue
        if isinstance(current, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for child in ast.iter_child_nodes(current):
                pending.append((child, module_scope and isinstance(child, ast.comprehension)))
            continue
        pending.extend((child, module_scope) for child in ast.iter_child_nodes(current))
