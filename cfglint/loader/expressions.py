"""Static evaluation of one config file's expressions, with an origin on every value.

Nothing is executed: each ast node kind is interpreted here, and anything outside pure data
operations raises :class:`UnknowableError`, which the nearest container element (or statement)
turns into an :class:`UnknownNode` carrying the expression's source text.
"""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from cfglint.codes import MMENGINE_REFUSES
from cfglint.loader.builtins_table import (
    BUILTIN_NAMES,
    CONFIG_DICT_METHODS,
    DICT_METHODS,
    LIST_METHODS,
    MODULE_CONSTANTS,
)
from cfglint.loader.calls import evaluate_call
from cfglint.loader.limits import (
    MAX_CHARS,
    MAX_ELEMENTS,
    MAX_STEPS,
    TOO_MANY_STEPS,
    WORK_BUDGET,
    check_binary,
    check_format_text,
    check_length,
    formatted_length,
    range_length,
    size_of,
    too_large,
)
from cfglint.loader.placeholders import BASE_VAR_PATTERN, has_placeholder
from cfglint.loader.problems import LoadError
from cfglint.loader.source import SourceText
from cfglint.loader.textsub import FilePlaceholders, MappedText, substitute_text
from cfglint.loader.values import (
    BaseVar,
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    from_py,
    lazy_import,
    thaw,
    to_py,
)
from cfglint.reprs import display_repr
from cfglint.types import (
    DictNode,
    Origin,
    ScalarNode,
    SequenceNode,
    Span,
    UnknownNode,
)

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
# Attributes of a plain dict that exist (so MMEngine raises no AttributeError) but that cfglint
# does not model: reading one is unknown, not an error. A ConfigDict has a few more, which win
# over a key of the same name (`cfg.freeze` is the method even when `freeze` is a key).
_DICT_ATTRIBUTES = frozenset(dir(dict))
_CONFIG_DICT_ATTRIBUTES = frozenset(
    {"build_lazy", "deepcopy", "freeze", "lazy", "unfreeze", "scope", "_hook", "_to_lazy_dict"}
)
_new_tuple = tuple.__new__


class ExpressionEvaluator:
    """Evaluates expressions of one file. Statements live in :mod:`statements`.

    A subclass that overrides `_eval_*` methods declares its own `handlers` table.
    """

    # ast node type -> its `_eval_*` method, filled on first use (cheaper than getattr per node).
    handlers: ClassVar[dict[type[ast.expr], Callable[..., Val]]] = {}

    def __init__(
        self,
        source: SourceText,
        chain: tuple[Path, ...],
        base: VDict,
        placeholders: FilePlaceholders,
    ) -> None:
        self.source = source
        self.path = source.path
        self.chain = chain
        self.base = base
        self.placeholders = placeholders
        self.namespace: dict[str, Val] = {"_base_": base}
        self.local_scopes: list[dict[str, Val]] = []
        self.steps = 0  # loop iterations and comprehension items so far (limits.MAX_STEPS)
        self.unknowns_made = 0  # how often evaluation hit something it does not follow
        # The functions, lambdas and classes defined so far, one per definition (by id of its
        # ast node): a lambda in a comprehension is evaluated once per item.
        self.file_code: dict[int, Opaque] = {}
        # Per function or class node: the names it mentions (see effects.py).
        self.code_mentions: dict[int, tuple[frozenset[str], frozenset[str], bool]] = {}
        self.work = 0  # size of the values computed so far (limits.WORK_BUDGET)

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
        self.unknowns_made += 1
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
        if isinstance(value, BaseVar):
            raise UnknowableError(
                f"iterating `{value.source}`, a random string while the file runs"
            )
        plain = to_py(value)
        if isinstance(plain, range) and range_length(plain) > MAX_ELEMENTS:
            raise too_large()
        try:
            items = list(plain)  # type: ignore[call-overload]
        except TypeError as error:
            raise UnknowableError(f"not iterable: {error}") from None
        if len(items) > MAX_ELEMENTS:
            raise too_large()
        return [from_py(item, value.origin) for item in items]

    def count_step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise UnknowableError(TOO_MANY_STEPS)

    def lookup_name(self, name: str) -> Val | None:
        for scope in reversed(self.local_scopes):
            if name in scope:
                return scope[name]
        return self.namespace.get(name)

    # -- dispatch --------------------------------------------------------------------------

    def evaluate(self, node: ast.expr) -> Val:
        kind = type(node)
        method = self.handlers.get(kind)
        if method is None:
            method = getattr(type(self), f"_eval_{kind.__name__}", None)
            if method is None:
                raise UnknowableError(f"`{kind.__name__}` expressions are not evaluated")
            self.handlers[kind] = method
        result: Val = method(self, node)
        return result

    def _eval_Constant(self, node: ast.Constant) -> Val:
        value = node.value
        if isinstance(value, str) and "{{" in value:
            return self._placeholder_string(node, value)
        if value is Ellipsis:
            raise UnknowableError("`...` is not config data")
        return ScalarNode(value, self.origin(node))

    def _placeholder_string(self, node: ast.Constant, value: str) -> Val:
        """A string literal as it reads once MMEngine has substituted the file's text."""
        if BASE_VAR_PATTERN.search(value) is not None:
            raise UnknowableError(
                "a quoted `{{_base_.x}}` becomes a random placeholder string in MMEngine; "
                "write it without quotes"
            )
        literal = self.source.segment(node)
        substituted = substitute_text(literal, self.placeholders)
        if substituted.text == literal:
            return ScalarNode(value, self.origin(node))
        return self._substituted_literal(node, substituted)

    def _substituted_literal(self, node: ast.expr, substituted: MappedText) -> Val:
        """The value of an expression's source text once MMEngine has substituted it."""
        # In parentheses: the text may span lines, with comments (implicit concatenation).
        text = f"(\n{substituted.text}\n)"
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            raise LoadError(
                MMENGINE_REFUSES,
                f"MMEngine substitutes placeholders in the text before it runs the file: "
                f"`{substituted.text}` is not valid Python",
                self.source.span(node),
            ) from None
        try:
            value = ast.literal_eval(tree)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise UnknowableError(
                f"`{substituted.text}` once MMEngine has substituted placeholders: not a literal"
            ) from None
        env = substituted.env_dependent(0, len(substituted.text))
        return from_py(value, self.origin(node, env))

    def _eval_Set(self, node: ast.Set) -> Val:
        # `{{_base_.x}}` and `{{'$ENV:1'}}` parse as a set inside a set.
        if len(node.elts) == 1 and isinstance(node.elts[0], ast.Set):
            text = self.source.segment(node)
            reference = BASE_VAR_PATTERN.fullmatch(text)
            if reference is not None:
                return BaseVar(reference.group(1), text, self.origin(node))
            # `{{'$X:80'}}`: MMEngine puts the text of the value in place of the braces.
            substituted = substitute_text(text, self.placeholders)
            if substituted.text != text:
                return self._substituted_literal(node, substituted)
        items = [self.py(element) for element in node.elts]
        try:
            return from_py(set(items), self.origin(node))
        except TypeError as error:
            raise DefiniteError(f"TypeError: {error}") from None

    def _eval_JoinedStr(self, node: ast.JoinedStr) -> Val:
        if has_placeholder(self.source.segment(node)):
            # `{{` is an escaped brace to Python, but MMEngine substitutes the text first.
            raise UnknowableError("a `{{...}}` placeholder in an f-string")
        parts: list[str] = []
        env = False
        length = 0  # an upper bound on the text so far: checked before each part is built
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                length += len(parts[-1])
                continue
            assert isinstance(value, ast.FormattedValue)
            formatted = self.evaluate(value.value)
            env = env or env_dependent(formatted)
            plain = to_py(formatted)
            spec = "" if value.format_spec is None else str(self.py(value.format_spec))
            check_format_text(spec)
            if size_of(plain) > MAX_ELEMENTS:
                raise too_large()
            length += formatted_length(plain, spec)
            if length > MAX_CHARS:
                raise too_large()
            try:
                if value.conversion == ord("r"):
                    plain = repr(plain)
                elif value.conversion == ord("s"):
                    plain = str(plain)
                elif value.conversion == ord("a"):
                    plain = ascii(plain)
                parts.append(format(plain, spec))
            except (TypeError, ValueError) as error:
                raise DefiniteError(f"{type(error).__name__}: {error}") from None
        # MMEngine substitutes the file's text, not the strings it computes: `{{` here stays.
        return ScalarNode("".join(parts), self.origin(node, env))

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
        lazy = lazy_import(owner)
        if lazy is not None:  # MMEngine's LazyAttr: never imported either
            attribute = lazy.attribute(name)
            return Opaque("lazy", attribute.path, self.origin(node), py=attribute)
        if isinstance(owner, Opaque) and owner.kind in ("module", "import"):
            qualified = f"{owner.name}.{name}"
            if qualified in MODULE_CONSTANTS:
                return from_py(MODULE_CONSTANTS[qualified], self.origin(node))
            # A module's attribute: a submodule, a function, a class or a value.
            return Opaque("import", qualified, self.origin(node))
        if isinstance(owner, VDict):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            if name in DICT_METHODS and (owner.config_dict or name not in CONFIG_DICT_METHODS):
                return Opaque("method", name, self.origin(node), bound=owner)
            if name in _DICT_ATTRIBUTES or name.startswith("__"):
                raise UnknowableError(f"dict attribute `{name}` is not evaluated")
            if not owner.config_dict:
                # Only dicts inherited from bases are MMEngine ConfigDicts; the file's own
                # `dict(...)` and `{...}` are plain dicts while it runs.
                raise DefiniteError(f"AttributeError: 'dict' object has no attribute '{name}'")
            if name in _CONFIG_DICT_ATTRIBUTES:
                raise UnknowableError(f"ConfigDict attribute `{name}` is not evaluated")
            if name in owner.entries:
                return owner.child(name)
            raise DefiniteError(f"AttributeError: 'ConfigDict' object has no attribute '{name}'")
        if isinstance(owner, VList):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            if name in LIST_METHODS:
                return Opaque("method", name, self.origin(node), bound=owner)
            raise UnknowableError(f"list attribute `{name}` is not evaluated")
        if isinstance(owner, ScalarNode):
            if hasattr(owner.value, name):
                return Opaque("method", name, self.origin(node), bound=owner)
            raise DefiniteError(
                f"AttributeError: '{type(owner.value).__name__}' object has no attribute '{name}'"
            )
        if isinstance(owner, BaseVar):
            if hasattr(str, name):
                return Opaque("method", name, self.origin(node), bound=owner)
            raise DefiniteError(
                f"AttributeError: `{owner.source}` is a str while the file runs (MMEngine): "
                f"it has no attribute '{name}'"
            )
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
            if isinstance(owner, VList) and owner.poison is None:
                return VList(owner.items[bounds], owner.is_tuple, self.origin(node))
            plain = to_py(owner)
            return self._computed(node, lambda: plain[bounds], (owner,))  # type: ignore[index]
        key = self.py(node.slice)
        return self.subscript(owner, key)

    def subscript(self, owner: Val, key: object) -> Val:
        if isinstance(owner, BaseVar):
            if isinstance(key, int):
                raise UnknowableError(
                    f"a character of `{owner.source}`, a random string while the file runs"
                )
            raise DefiniteError(
                f"TypeError: `{owner.source}` is a str while the file runs (MMEngine): "
                f"string indices must be integers, not '{type(key).__name__}'"
            )
        if isinstance(owner, VDict):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            try:
                return owner.child(key)
            except (KeyError, TypeError):
                raise DefiniteError(f"KeyError: {display_repr(key)}") from None
        if isinstance(owner, VList):
            if owner.poison is not None:
                raise UnknowableError(owner.poison.reason, owner.poison)
            if not isinstance(key, int) or isinstance(key, bool):
                raise UnknowableError(f"list index {display_repr(key)} is not an int")
            try:
                return owner.child(key)
            except IndexError:
                raise DefiniteError(f"IndexError: list index {key} out of range") from None
        plain = to_py(owner)
        try:
            return from_py(plain[key], owner.origin)  # type: ignore[index]
        except (KeyError, IndexError, TypeError) as error:
            raise DefiniteError(f"{type(error).__name__}: {error}") from None

    def _computed(
        self,
        node: ast.expr | ast.stmt,
        compute: Callable[[], object],
        inputs: tuple[Val, ...] = (),
    ) -> Val:
        """The value ``compute`` returns, marked env-dependent when one of ``inputs`` is.

        Every input is known (computations take plain values), so an exception here is one
        MMEngine would raise too.
        """
        if self.work > WORK_BUDGET:
            raise too_large()
        try:
            result = compute()
        except UnknowableError:
            raise
        except MemoryError:
            raise too_large() from None
        except RecursionError:
            raise UnknowableError("too deeply nested to evaluate") from None
        except Exception as error:
            raise DefiniteError(f"{type(error).__name__}: {error}") from None
        if not isinstance(result, bool | int | float | type(None)):
            size = size_of(result)
            self.work += size  # what was built counts, even when it is refused
            if size > MAX_ELEMENTS or self.work > WORK_BUDGET:
                raise too_large()
        env = any(env_dependent(value) for value in inputs)
        return from_py(result, self.origin(node, env))

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
            check_length(len(left.items), len(right.items))
            return VList([*left.items, *right.items], left.is_tuple, self.origin(node))
        if (
            op is ast.BitOr
            and isinstance(left, VDict)
            and isinstance(right, VDict)
            and left.poison is None
            and right.poison is None
        ):
            return VDict({**left.entries, **right.entries}, self.origin(node))
        left_py, right_py = to_py(left), to_py(right)
        check_binary(op.__name__, left_py, right_py)
        function = BINARY_OPERATORS[op]
        return self._computed(node, lambda: function(left_py, right_py), (left, right))

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Val:
        value = self.evaluate(node.operand)
        operand = to_py(value)
        function = UNARY_OPERATORS[type(node.op)]
        return self._computed(node, lambda: function(operand), (value,))

    def _eval_BoolOp(self, node: ast.BoolOp) -> Val:
        result = self.evaluate(node.values[0])
        for value in node.values[1:]:
            truthy = bool(to_py(result))
            if isinstance(node.op, ast.And) != truthy:
                return result
            result = self.evaluate(value)
        return result

    def _eval_Compare(self, node: ast.Compare) -> Val:
        left_value = self.evaluate(node.left)
        left = to_py(left_value)
        inputs = [left_value]
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right_value = self.evaluate(comparator)
            inputs.append(right_value)
            right = to_py(right_value)
            function = COMPARE_OPERATORS[type(op)]
            outcome = self._computed(node, functools.partial(function, left, right))
            if not to_py(outcome):
                return ScalarNode(False, self.origin(node, env_dependent(*inputs)))
            left = right
        return ScalarNode(True, self.origin(node, env_dependent(*inputs)))

    def _eval_IfExp(self, node: ast.IfExp) -> Val:
        test = self.evaluate(node.test)
        chosen = self.evaluate(node.body if to_py(test) else node.orelse)
        if isinstance(chosen, ScalarNode) and env_dependent(test):
            return ScalarNode(chosen.value, chosen.origin._replace(env_dependent=True))
        return chosen

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
                raise UnknowableError(f"unhashable key {display_repr(key)}") from None
        return VDict(entries, self.origin(node))

    def mapping_entries(self, value: Val) -> dict[object, Val]:
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
        if isinstance(value, BaseVar | ScalarNode | VList):
            raise DefiniteError("TypeError: `**` of something that is not a mapping")
        if not isinstance(value, VDict):
            raise UnknowableError("`**` of something that is not a known dict")
        if value.poison is not None:
            raise UnknowableError(value.poison.reason, value.poison)
        return {key: value.child(key) for key in list(value.entries)}

    def sequence_items(self, elements: list[ast.expr]) -> list[Val]:
        items: list[Val] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                added = self.iterate(self.evaluate(element.value))
                check_length(len(items), len(added))
                items.extend(added)
            else:
                items.append(self.item(element))
        return items

    def _eval_List(self, node: ast.List) -> Val:
        return VList(self.sequence_items(node.elts), False, self.origin(node))

    def _eval_Tuple(self, node: ast.Tuple) -> Val:
        return VList(self.sequence_items(node.elts), True, self.origin(node))

    def _eval_Lambda(self, node: ast.Lambda) -> Val:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.item(default)  # evaluated when the lambda is created
        code = self.file_code.get(id(node))
        if code is None:
            code = Opaque("function", "<lambda>", self.origin(node), py=node)
            self.file_code[id(node)] = code
        return code

    def _eval_NamedExpr(self, node: ast.NamedExpr) -> Val:
        value = self.evaluate(node.value)
        # In a comprehension too, `:=` binds in the enclosing scope: here, the module's.
        self.namespace[node.target.id] = value
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
            self.count_step()
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


def env_dependent(*values: Val) -> bool:
    """Whether a value (or anything inside it) came from a ``{{$ENV:default}}`` placeholder."""
    pending = list(values)
    while pending:
        value = pending.pop()
        if value.origin.env_dependent:
            return True
        if isinstance(value, VDict | DictNode):
            pending.extend(value.entries.values())
        elif isinstance(value, VList | SequenceNode):
            pending.extend(value.items)
    return False
