"""Static evaluation of one config file's expressions, with an origin on every value.

Nothing is executed: each ast node kind is interpreted here, and anything outside pure data
operations raises :class:`UnknowableError`, which the nearest container element (or statement)
turns into an :class:`UnknownNode` carrying the expression's source text.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cfglint.loader.builtins_table import (
    BUILTIN_NAMES,
    DICT_METHODS,
    LIST_METHODS,
    MODULE_CONSTANTS,
)
from cfglint.loader.calls import evaluate_call
from cfglint.loader.placeholders import MissingEnvError, substitute
from cfglint.loader.problems import LoadError
from cfglint.loader.source import SourceText
from cfglint.loader.values import (
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    deep_copy,
    from_py,
    thaw,
    to_py,
)
from cfglint.types import DictNode, Origin, ScalarNode, SequenceNode, Span, UnknownNode

BINARY_OPERATORS: dict[type[ast.operator], Callable[..., object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
UNARY_OPERATORS: dict[type[ast.unaryop], Callable[..., object]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
COMPARE_OPERATORS: dict[type[ast.cmpop], Callable[..., object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
}
_BASE_REFERENCE = re.compile(r"^\{\{\s*_base_\.([\w\.]+)\s*\}\}$")
_QUOTED_BASE_REFERENCE = re.compile(r"\{\{\s*_base_\.([\w\.]+)\s*\}\}")
_MAX_POWER = 10_000  # refuse `10 ** 10 ** 10`-style values that would hang a linter
_new_tuple = tuple.__new__
# ast node type -> its `_eval_*` method, filled on first use (cheaper than getattr per node).
_HANDLERS: dict[type[ast.expr], Callable[..., Val]] = {}


class ExpressionEvaluator:
    """Evaluates expressions of one file. Statements live in :mod:`statements`."""

    def __init__(
        self,
        source: SourceText,
        chain: tuple[Path, ...],
        base: VDict,
        environ: Mapping[str, str],
        predefined: Mapping[str, str],
    ) -> None:
        self.source = source
        self.path = source.path
        self.chain = chain
        self.base = base
        self.environ = environ
        self.predefined = predefined
        self.namespace: dict[str, Val] = {"_base_": base}
        self.local_scopes: list[dict[str, Val]] = []

    # -- helpers ---------------------------------------------------------------------------

    def origin(self, node: ast.expr | ast.stmt, env_dependent: bool = False) -> Origin:
        # This runs for every value. `tuple.__new__` builds the NamedTuples without going through
        # their generated Python-level `__new__`: half the cost, the same tuples.
        if self.source.ascii:  # the common case, inlined
            end_line = node.end_lineno or node.lineno
            end_column = node.col_offset if node.end_col_offset is None else node.end_col_offset
            span = _new_tuple(
                Span, (self.path, node.lineno, node.col_offset + 1, end_line, end_column + 1)
            )
            return _new_tuple(Origin, (span, self.chain, env_dependent))
        return _new_tuple(Origin, (self.source.span(node), self.chain, env_dependent))

    def unknown(self, node: ast.expr | ast.stmt, reason: str) -> UnknownNode:
        return UnknownNode(self.source.segment(node), reason, self.origin(node))

    def item(self, node: ast.expr) -> Val:
        """A container element: an unknown stays local to this element."""
        if type(node) is ast.Constant and not isinstance(node.value, str | type(...)):
            return ScalarNode(node.value, self.origin(node))  # the common case, without dispatch
        try:
            return self.evaluate(node)
        except DefiniteError:
            raise
        except UnknowableError as error:
            return self.unknown(node, error.reason)
        except (RecursionError, MemoryError):
            return self.unknown(node, "too deeply nested to evaluate")

    def py(self, node: ast.expr) -> object:
        return to_py(self.evaluate(node))

    def iterate(self, value: Val) -> list[Val]:
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
        if isinstance(value, VList):
            if value.poison is not None:
                raise UnknowableError(value.poison.reason, value.poison)
            return [value.child(index) for index in range(len(value.items))]
        if isinstance(value, VDict):
            if value.poison is not None:
                raise UnknowableError(value.poison.reason, value.poison)
            return [ScalarNode(key, value.origin) for key in value.entries]
        plain = to_py(value)
        try:
            items = list(plain)  # type: ignore[call-overload]
        except TypeError as error:
            raise UnknowableError(f"not iterable: {error}") from None
        return [from_py(item, value.origin) for item in items]

    def lookup_name(self, name: str) -> Val | None:
        for scope in reversed(self.local_scopes):
            if name in scope:
                return scope[name]
        return self.namespace.get(name)

    # -- dispatch --------------------------------------------------------------------------

    def evaluate(self, node: ast.expr) -> Val:
        kind = type(node)
        method = _HANDLERS.get(kind)
        if method is None:
            method = getattr(type(self), f"_eval_{kind.__name__}", None)
            if method is None:
                raise UnknowableError(f"`{kind.__name__}` expressions are not evaluated")
            _HANDLERS[kind] = method
        result: Val = method(self, node)
        return result

    def _eval_Constant(self, node: ast.Constant) -> Val:
        value = node.value
        if isinstance(value, str) and "{{" in value:
            return self._placeholder_string(node, value)
        if value is Ellipsis:
            raise UnknowableError("`...` is not config data")
        return ScalarNode(value, self.origin(node))

    def _placeholder_string(self, node: ast.expr, value: str) -> Val:
        reference = _QUOTED_BASE_REFERENCE.search(value)
        if reference is not None:
            self.base_reference(node, reference.group(1))
            raise UnknowableError(
                "a quoted `{{_base_.x}}` becomes a random placeholder string in MMEngine; "
                "write it without quotes"
            )
        try:
            substituted = substitute(value, self.predefined, self.environ)
        except MissingEnvError as error:
            raise self.missing_env(node, error.name) from None
        return ScalarNode(substituted.text, self.origin(node, substituted.env_dependent))

    def missing_env(self, node: ast.expr, name: str) -> LoadError:
        return LoadError(
            "CL905",
            f"environment variable `{name}` is not set and `{{{{${name}:...}}}}` gives no default",
            self.source.span(node),
        )

    def base_reference(self, node: ast.expr, dotted: str) -> Val:
        value: Val = self.base
        for part in dotted.split("."):
            if isinstance(value, DictNode | SequenceNode):
                value = thaw(value)
            if not isinstance(value, VDict) or part not in value.entries:
                raise LoadError(
                    "CL905",
                    f"`{{{{_base_.{dotted}}}}}`: the bases do not define `{part}`",
                    self.source.span(node),
                )
            value = value.child(part)
        return deep_copy(value)

    def _eval_Set(self, node: ast.Set) -> Val:
        # `{{_base_.x}}` and `{{'$ENV:1'}}` parse as a set inside a set.
        if len(node.elts) == 1 and isinstance(node.elts[0], ast.Set):
            text = self.source.segment(node)
            reference = _BASE_REFERENCE.match(text)
            if reference is not None:
                return self.base_reference(node, reference.group(1))
            if "$" in text:
                return self._bare_env(node, text)
        items = [self.py(element) for element in node.elts]
        try:
            return from_py(set(items), self.origin(node))
        except TypeError as error:
            raise UnknowableError(str(error)) from None

    def _bare_env(self, node: ast.expr, text: str) -> Val:
        try:
            substituted = substitute(text, self.predefined, self.environ)
        except MissingEnvError as error:
            raise self.missing_env(node, error.name) from None
        try:
            value = ast.literal_eval(substituted.text)
        except (ValueError, SyntaxError):
            raise UnknowableError(f"`{substituted.text}` is not a literal") from None
        return from_py(value, self.origin(node, substituted.env_dependent))

    def _eval_JoinedStr(self, node: ast.JoinedStr) -> Val:
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            assert isinstance(value, ast.FormattedValue)
            plain = self.py(value.value)
            if value.conversion == ord("r"):
                plain = repr(plain)
            elif value.conversion == ord("s"):
                plain = str(plain)
            elif value.conversion == ord("a"):
                plain = ascii(plain)
            spec = "" if value.format_spec is None else str(self.py(value.format_spec))
            try:
                parts.append(format(plain, spec))
            except (TypeError, ValueError) as error:
                raise UnknowableError(f"formatting fails: {error}") from None
        text = "".join(parts)
        if "{{" in text:
            return self._placeholder_string(node, text)
        return ScalarNode(text, self.origin(node))

    def _eval_Name(self, node: ast.Name) -> Val:
        value = self.lookup_name(node.id)
        if value is not None:
            return value
        if node.id in BUILTIN_NAMES:
            return Opaque("builtin", node.id, self.origin(node))
        if node.id == "__name__":  # found in the builtins module when a config runs
            return ScalarNode("builtins", self.origin(node))
        raise DefiniteError(f"NameError: name `{node.id}` is not defined")

    def _eval_Attribute(self, node: ast.Attribute) -> Val:
        owner = self.evaluate(node.value)
        return self.attribute(owner, node.attr, node)

    def attribute(self, owner: Val, name: str, node: ast.expr) -> Val:
        if isinstance(owner, DictNode | SequenceNode):
            owner = thaw(owner)
        if isinstance(owner, Opaque) and owner.kind in ("module", "import"):
            qualified = f"{owner.name}.{name}"
            if qualified in MODULE_CONSTANTS:
                return from_py(MODULE_CONSTANTS[qualified], self.origin(node))
            return Opaque(owner.kind, qualified, self.origin(node))
        if isinstance(owner, VDict):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            if name in DICT_METHODS:
                return Opaque("method", name, self.origin(node), bound=owner)
            if name in owner.entries:
                return owner.child(name)
            raise DefiniteError(f"AttributeError: the dict has no key `{name}`")
        if isinstance(owner, VList):
            if name in LIST_METHODS:
                return Opaque("method", name, self.origin(node), bound=owner)
            raise UnknowableError(f"a list has no attribute `{name}`")
        if isinstance(owner, ScalarNode):
            if hasattr(owner.value, name):
                return Opaque("method", name, self.origin(node), bound=owner)
            raise UnknowableError(f"`{type(owner.value).__name__}` has no attribute `{name}`")
        raise UnknowableError(f"attribute `{name}` of something cfglint does not evaluate")

    def _eval_Subscript(self, node: ast.Subscript) -> Val:
        owner = self.evaluate(node.value)
        if isinstance(owner, DictNode | SequenceNode):
            owner = thaw(owner)
        if isinstance(node.slice, ast.Slice):
            parts: list[Any] = [
                None if part is None else self.py(part)
                for part in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            bounds = slice(*parts)
            if isinstance(owner, VList):
                return VList(owner.items[bounds], owner.is_tuple, self.origin(node))
            return self._computed(node, lambda: to_py(owner)[bounds])  # type: ignore[index]
        key = self.py(node.slice)
        return self.subscript(owner, key)

    def subscript(self, owner: Val, key: object) -> Val:
        if isinstance(owner, VDict):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            try:
                return owner.child(key)
            except (KeyError, TypeError):
                raise DefiniteError(f"KeyError: {key!r}") from None
        if isinstance(owner, VList):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            if not isinstance(key, int) or isinstance(key, bool):
                raise UnknowableError(f"list index {key!r} is not an int")
            try:
                return owner.child(key if key >= 0 else len(owner.items) + key)
            except IndexError:
                raise DefiniteError(f"IndexError: list index {key} out of range") from None
        plain = to_py(owner)
        try:
            return from_py(plain[key], owner.origin)  # type: ignore[index]
        except (KeyError, IndexError, TypeError) as error:
            raise UnknowableError(f"subscript fails: {error!r}") from None

    def _computed(self, node: ast.expr | ast.stmt, compute: Callable[[], object]) -> Val:
        try:
            return from_py(compute(), self.origin(node))
        except UnknowableError:
            raise
        except Exception as error:
            raise DefiniteError(f"{type(error).__name__}: {error}") from None

    def _eval_BinOp(self, node: ast.BinOp) -> Val:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        return self.binary(node, type(node.op), left, right)

    def binary(
        self, node: ast.expr | ast.stmt, op: type[ast.operator], left: Val, right: Val
    ) -> Val:
        if isinstance(left, DictNode | SequenceNode):
            left = thaw(left)
        if isinstance(right, DictNode | SequenceNode):
            right = thaw(right)
        if (
            op is ast.Add
            and isinstance(left, VList)
            and isinstance(right, VList)
            and left.is_tuple == right.is_tuple
            and left.poison is None
            and right.poison is None
        ):
            # Keep each element's own origin: `pipeline = _base_.pipeline + [...]`.
            return VList([*left.items, *right.items], left.is_tuple, self.origin(node))
        if op is ast.BitOr and isinstance(left, VDict) and isinstance(right, VDict):
            return VDict({**left.entries, **right.entries}, self.origin(node))
        left_py, right_py = to_py(left), to_py(right)
        if op is ast.Pow and isinstance(right_py, int | float) and abs(right_py) > _MAX_POWER:
            raise UnknowableError("exponent too large to evaluate")
        if op is ast.Mult and _huge_repeat(left_py, right_py):
            raise UnknowableError("repetition too large to evaluate")
        function = BINARY_OPERATORS[op]
        return self._computed(node, lambda: function(left_py, right_py))

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Val:
        operand = self.py(node.operand)
        function = UNARY_OPERATORS[type(node.op)]
        return self._computed(node, lambda: function(operand))

    def _eval_BoolOp(self, node: ast.BoolOp) -> Val:
        result = self.evaluate(node.values[0])
        for value in node.values[1:]:
            truthy = bool(to_py(result))
            if isinstance(node.op, ast.And) != truthy:
                return result
            result = self.evaluate(value)
        return result

    def _eval_Compare(self, node: ast.Compare) -> Val:
        left = self.py(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.py(comparator)
            function = COMPARE_OPERATORS[type(op)]
            outcome = self._computed(node, functools.partial(function, left, right))
            if not to_py(outcome):
                return ScalarNode(False, self.origin(node))
            left = right
        return ScalarNode(True, self.origin(node))

    def _eval_IfExp(self, node: ast.IfExp) -> Val:
        return self.evaluate(node.body if to_py(self.evaluate(node.test)) else node.orelse)

    def _eval_Dict(self, node: ast.Dict) -> Val:
        entries: dict[object, Val] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                entries.update(self.mapping_entries(self.evaluate(value_node)))
                continue
            key = self.py(key_node)
            try:
                entries[key] = self.item(value_node)
            except TypeError:
                raise UnknowableError(f"unhashable key {key!r}") from None
        return VDict(entries, self.origin(node))

    def mapping_entries(self, value: Val) -> dict[object, Val]:
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
        if not isinstance(value, VDict):
            raise UnknowableError("`**` of something that is not a known dict")
        if value.poison is not None:
            raise UnknowableError(value.poison.reason, value.poison)
        return {key: value.child(key) for key in list(value.entries)}

    def sequence_items(self, elements: list[ast.expr]) -> list[Val]:
        items: list[Val] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                items.extend(self.iterate(self.evaluate(element.value)))
            else:
                items.append(self.item(element))
        return items

    def _eval_List(self, node: ast.List) -> Val:
        return VList(self.sequence_items(node.elts), False, self.origin(node))

    def _eval_Tuple(self, node: ast.Tuple) -> Val:
        return VList(self.sequence_items(node.elts), True, self.origin(node))

    def _eval_Lambda(self, node: ast.Lambda) -> Val:
        return Opaque("function", "<lambda>", self.origin(node))

    def _eval_NamedExpr(self, node: ast.NamedExpr) -> Val:
        value = self.evaluate(node.value)
        scope = self.local_scopes[-1] if self.local_scopes else self.namespace
        scope[node.target.id] = value
        return value

    # Comprehensions ------------------------------------------------------------------------

    def _comprehend(self, generators: list[ast.comprehension], emit: Callable[[], None]) -> None:
        self.local_scopes.append({})
        try:
            self._run_generators(generators, 0, emit)
        finally:
            self.local_scopes.pop()

    def _run_generators(
        self, generators: list[ast.comprehension], index: int, emit: Callable[[], None]
    ) -> None:
        if index == len(generators):
            emit()
            return
        generator = generators[index]
        # The first iterable is evaluated in the enclosing scope, as Python does.
        if index == 0:
            saved = self.local_scopes.pop()
            try:
                iterable = self.iterate(self.evaluate(generator.iter))
            finally:
                self.local_scopes.append(saved)
        else:
            iterable = self.iterate(self.evaluate(generator.iter))
        for element in iterable:
            self.bind(generator.target, element, self.local_scopes[-1])
            if all(to_py(self.evaluate(condition)) for condition in generator.ifs):
                self._run_generators(generators, index + 1, emit)

    def bind(self, target: ast.expr, value: Val, scope: dict[str, Val]) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            parts = self.iterate(value)
            if len(parts) != len(target.elts):
                raise UnknowableError("unpacking a different number of values")
            for sub_target, part in zip(target.elts, parts, strict=True):
                self.bind(sub_target, part, scope)
            return
        raise UnknowableError("assignment target cfglint does not evaluate")

    def _eval_ListComp(self, node: ast.ListComp) -> Val:
        items: list[Val] = []
        self._comprehend(node.generators, lambda: items.append(self.item(node.elt)))
        return VList(items, False, self.origin(node))

    _eval_GeneratorExp = _eval_ListComp

    def _eval_SetComp(self, node: ast.SetComp) -> Val:
        items: list[object] = []
        self._comprehend(node.generators, lambda: items.append(self.py(node.elt)))
        return self._computed(node, lambda: set(items))

    def _eval_DictComp(self, node: ast.DictComp) -> Val:
        entries: dict[object, Val] = {}

        def emit() -> None:
            entries[self.py(node.key)] = self.item(node.value)

        self._comprehend(node.generators, emit)
        return VDict(entries, self.origin(node))

    def _eval_Call(self, node: ast.Call) -> Val:
        return evaluate_call(self, node)


def _huge_repeat(left: object, right: object) -> bool:
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, str | list | tuple | bytes) and isinstance(count, int):
            return len(sequence) * count > 10_000_000
    return False
