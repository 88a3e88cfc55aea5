"""Calls: pure builtins, ``copy.deepcopy``, and the dict/list/str methods of config data.

A call cfglint does not evaluate may change the config data it can reach: ``effects.py`` marks
that data unknown before the call itself becomes unknown.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from cfglint.loader.builtins_table import (
    BUILTIN_NAMES,
    EXCEPTION_TYPES,
    PURE_BUILTINS,
    PURE_MODULE_FUNCTIONS,
    STR_METHODS,
    TYPE_NAMES,
)
from cfglint.loader.effects import forget_call
from cfglint.loader.limits import check_call, check_length
from cfglint.loader.merge import DELETE_KEY
from cfglint.loader.values import (
    BaseVar,
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_data,
    lazy_import,
    thaw,
    to_py,
)
from cfglint.reprs import display_repr
from cfglint.types import DictNode, ScalarNode, SequenceNode, UnknownNode

if TYPE_CHECKING:
    from cfglint.loader.expressions import ExpressionEvaluator


class Arguments:
    def __init__(self, positional: list[Val], keywords: dict[str, Val]) -> None:
        self.positional = positional
        self.keywords = keywords

    def all_values(self) -> list[Val]:
        return [*self.positional, *self.keywords.values()]


def call_arguments(evaluator: ExpressionEvaluator, node: ast.Call) -> Arguments:
    positional = evaluator.sequence_items(node.args)
    keywords: dict[str, Val] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            entries = evaluator.mapping_entries(evaluator.evaluate(keyword.value))
            for key in entries:
                if not isinstance(key, str):
                    raise DefiniteError("TypeError: keywords must be strings")
            keywords.update({str(key): value for key, value in entries.items()})
        else:
            keywords[keyword.arg] = evaluator.item(keyword.value)
    return Arguments(positional, keywords)


_BAD_ARGUMENTS = (ValueError, TypeError, AssertionError, IndexError, KeyError)


def _bad_arguments(error: Exception) -> UnknowableError:
    return UnknowableError(f"bad arguments: {type(error).__name__}: {error}")


def _builtin_called_by_name(evaluator: ExpressionEvaluator, func: ast.expr) -> str | None:
    """The builtin's name when ``func`` is a bare name that no assignment shadows."""
    if type(func) is not ast.Name or func.id not in BUILTIN_NAMES:
        return None
    return func.id if evaluator.lookup_name(func.id) is None else None


def evaluate_call(evaluator: ExpressionEvaluator, node: ast.Call) -> Val:
    builtin = _builtin_called_by_name(evaluator, node.func)
    function: Val | None = None
    try:
        if builtin is not None:
            # Most calls in a config are `dict(...)`: dispatch on the name without building
            # the callee's value (an Opaque with its origin) that nothing else would read.
            arguments = call_arguments(evaluator, node)
            try:
                return call_builtin(evaluator, node, builtin, arguments)
            except _BAD_ARGUMENTS as error:
                raise _bad_arguments(error) from None
        function = evaluator.evaluate(node.func)
        arguments = call_arguments(evaluator, node)
        try:
            return dispatch_call(evaluator, node, function, arguments)
        except _BAD_ARGUMENTS as error:
            raise _bad_arguments(error) from None
    except DefiniteError:
        raise
    except UnknowableError as error:
        if builtin is not None:
            function = Opaque("builtin", builtin, evaluator.origin(node.func))
        forget_call(evaluator, node, function, evaluator.unknown(node, error.reason))
        raise


def dispatch_call(
    evaluator: ExpressionEvaluator, node: ast.Call, function: Val, arguments: Arguments
) -> Val:
    lazy = lazy_import(function)
    if lazy is not None:
        # `LazyObject.__call__` raises: the config cannot call what it imports.
        raise DefiniteError(
            f"RuntimeError: `{lazy.path}` is a lazy import (MMEngine's LazyObject), which "
            "cannot be called while the config is read"
        )
    if not isinstance(function, Opaque):
        raise UnknowableError("calling something that is not a function")
    if function.kind == "builtin":
        return call_builtin(evaluator, node, function.name, arguments)
    if function.kind == "method":
        return _method(evaluator, node, function.bound, function.name, arguments)
    if function.kind in ("module", "import"):
        if function.name in ("copy.deepcopy", "copy.copy"):
            (value,) = arguments.positional
            if function.name == "copy.deepcopy":
                return copy_data(value, "deepcopy")
            return _shallow_copy(value)
        pure = PURE_MODULE_FUNCTIONS.get(function.name)
        if pure is not None:
            return _pure_call(evaluator, node, function.name, pure, arguments)
    if function.kind in ("function", "class"):
        raise UnknowableError(f"call to `{function.name}`, defined in the config: not evaluated")
    raise UnknowableError(f"call to `{function.name}`, which cfglint does not run")


def _pure_call(
    evaluator: ExpressionEvaluator,
    node: ast.Call,
    name: str,
    function: object,
    arguments: Arguments,
    receiver: ScalarNode | None = None,
) -> Val:
    """A pure function (``name`` as in the table), or a str method bound to ``receiver``: the
    receiver is an input too, for the limits and the env-dependent mark."""
    positional = [to_py(value) for value in arguments.positional]
    keywords = {key: to_py(value) for key, value in arguments.keywords.items()}
    inputs = arguments.all_values()
    plain = [*positional, *keywords.values()]
    if receiver is not None:
        inputs.insert(0, receiver)
        plain.insert(0, receiver.value)
    check_call(name, plain)
    assert callable(function)
    return evaluator._computed(node, lambda: function(*positional, **keywords), tuple(inputs))


def _shallow_copy(value: Val) -> Val:
    if isinstance(value, DictNode | SequenceNode):
        value = thaw(value)
    if isinstance(value, VDict | VList) and value.poison is not None:
        raise UnknowableError(value.poison.reason, value.poison)
    if isinstance(value, VDict):
        return VDict(dict(value.entries), value.origin, value.config_dict)
    if isinstance(value, VList):
        return VList(list(value.items), value.is_tuple, value.origin)
    return value


def call_builtin(
    evaluator: ExpressionEvaluator, node: ast.Call, name: str, arguments: Arguments
) -> Val:
    origin = evaluator.origin(node)
    positional = arguments.positional
    if name == "dict":
        entries: dict[object, Val] = {}
        if positional:
            (source,) = positional
            if isinstance(source, VDict | DictNode):
                entries.update(evaluator.mapping_entries(source))
            else:
                for pair in evaluator.iterate(source):
                    key, value = evaluator.iterate(pair)
                    entries[to_py(key)] = value
        entries.update(arguments.keywords)
        return VDict(entries, origin)
    if name in ("list", "tuple"):
        items = evaluator.iterate(positional[0]) if positional else []
        return VList(items, name == "tuple", origin)
    if name == "len":
        (value,) = positional
        return ScalarNode(len(evaluator.iterate(value)), origin)
    if name in ("zip", "enumerate", "reversed"):
        return VList(_pairs(evaluator, name, arguments, origin), False, origin)
    if name == "isinstance":
        value, kinds = positional
        return ScalarNode(isinstance(to_py(value), _types(kinds)), origin)
    if name == "print":
        return ScalarNode(None, origin)
    if name in ("iter",):
        return VList(evaluator.iterate(positional[0]), False, origin)
    pure = PURE_BUILTINS.get(name)
    if pure is None:
        raise UnknowableError(f"call to `{name}`, which cfglint does not run")
    return _pure_call(evaluator, node, name, pure, arguments)


def _pairs(
    evaluator: ExpressionEvaluator, name: str, arguments: Arguments, origin: object
) -> list[Val]:
    from cfglint.types import Origin

    assert isinstance(origin, Origin)
    if name == "reversed":
        return list(reversed(evaluator.iterate(arguments.positional[0])))
    if name == "enumerate":
        start = to_py(arguments.keywords["start"]) if "start" in arguments.keywords else 0
        if len(arguments.positional) > 1:
            start = to_py(arguments.positional[1])
        assert isinstance(start, int)
        items = evaluator.iterate(arguments.positional[0])
        return [
            VList([ScalarNode(start + index, origin), item], True, origin)
            for index, item in enumerate(items)
        ]
    columns = [evaluator.iterate(value) for value in arguments.positional]
    return [VList(list(row), True, origin) for row in zip(*columns, strict=False)]


def _types(kinds: Val) -> type | tuple[type, ...]:
    if isinstance(kinds, VList):
        return tuple(t for item in kinds.items for t in _as_tuple(_types(item)))
    if isinstance(kinds, Opaque) and kinds.kind == "builtin":
        known = TYPE_NAMES.get(kinds.name) or EXCEPTION_TYPES.get(kinds.name)
        if known is not None:
            return known
    raise UnknowableError("isinstance() with a type cfglint does not know")


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


_MISSING = object()


def _method(
    evaluator: ExpressionEvaluator, node: ast.Call, owner: object, name: str, arguments: Arguments
) -> Val:
    if isinstance(owner, VDict):
        return _dict_method(evaluator, node, owner, name, arguments)
    if isinstance(owner, VList):
        return _list_method(evaluator, node, owner, name, arguments)
    if isinstance(owner, ScalarNode) and name in STR_METHODS:
        bound = getattr(owner.value, name)
        return _pure_call(evaluator, node, f"str.{name}", bound, arguments, receiver=owner)
    if isinstance(owner, BaseVar):
        raise UnknowableError(f"`{owner.source}` is a random string while the file runs")
    raise UnknowableError(f"method `{name}` is not evaluated")


def _dict_method(
    evaluator: ExpressionEvaluator, node: ast.Call, owner: VDict, name: str, arguments: Arguments
) -> Val:
    origin = evaluator.origin(node)
    args = arguments.positional
    if owner.poison is not None:
        raise UnknowableError(owner.poison.reason, owner.poison)
    if name == "get":
        key = to_py(args[0])
        if key in owner.entries:
            return owner.child(key)
        return args[1] if len(args) > 1 else ScalarNode(None, origin)
    if name == "pop":
        key = to_py(args[0])
        if key in owner.entries:
            value = owner.child(key)
            del owner.entries[key]
            return value
        if len(args) > 1:
            return args[1]
        if owner.config_dict:  # ConfigDict.pop defaults to None
            return ScalarNode(None, origin)
        raise UnknowableError(f"pop of a missing key {display_repr(key)} raises KeyError")
    if name == "setdefault":
        key = to_py(args[0])
        if key not in owner.entries:
            default = args[1] if len(args) > 1 else ScalarNode(None, origin)
            owner.entries[key] = copy_data(default, "config_dict") if owner.config_dict else default
        return owner.child(key)
    if name == "update":
        other: dict[object, Val] = {}
        if args:
            other.update(_update_source(evaluator, args[0]))
        other.update(arguments.keywords)
        _update(owner, other)
        return ScalarNode(None, origin)
    if name == "copy":
        return _shallow_copy(owner)
    if name in ("keys", "values", "items"):
        keys = list(owner.entries)
        if name == "keys":
            return VList([ScalarNode(key, owner.origin) for key in keys], False, origin)
        if name == "values":
            return VList([owner.child(key) for key in keys], False, origin)
        return VList(
            [
                VList([ScalarNode(key, owner.origin), owner.child(key)], True, origin)
                for key in keys
            ],
            False,
            origin,
        )
    if name == "clear":
        owner.entries.clear()
        return ScalarNode(None, origin)
    if name == "to_dict":
        return copy_data(owner, "to_dict")
    if name == "merge":
        if len(args) != 1 or arguments.keywords:
            raise DefiniteError("TypeError: ConfigDict.merge() takes one dict")
        merged = _merged(copy_data(args[0], "deepcopy"), copy_data(owner, "deepcopy"))
        if not isinstance(merged, VDict):
            raise UnknowableError("ConfigDict.merge() of something that is not a known dict")
        owner.entries.clear()
        for key, value in merged.entries.items():
            owner.entries[key] = copy_data(value, "config_dict")
        return ScalarNode(None, origin)
    raise UnknowableError(f"dict method `{name}` is not evaluated")


def _update_source(evaluator: ExpressionEvaluator, source: Val) -> dict[object, Val]:
    if isinstance(source, VDict | DictNode):
        return evaluator.mapping_entries(source)
    pairs: dict[object, Val] = {}
    for pair in evaluator.iterate(source):
        key, value = evaluator.iterate(pair)
        pairs[to_py(key)] = value
    return pairs


def _update(owner: VDict, other: dict[object, Val]) -> None:
    """``dict.update``; on a ConfigDict MMEngine merges nested dicts recursively."""
    for key, value in other.items():
        if not owner.config_dict:
            owner.entries[key] = value
            continue
        current = owner.child(key) if key in owner.entries else None
        if isinstance(current, VDict) and isinstance(value, VDict | DictNode):
            if isinstance(value, DictNode):
                value = thaw(value)
            assert isinstance(value, VDict)
            # A poisoned dict takes no reads or writes (see poison_deep).
            poison = current.poison or value.poison
            if poison is not None:
                raise UnknowableError(poison.reason, poison)
            _update(current, dict(value.entries))
        else:
            owner.entries[key] = copy_data(value, "config_dict")


def _merged(new: Val | None, old: Val | None) -> Val | None:
    """``ConfigDict.merge``'s ``_merge_a_into_b`` on copies (None: the key is absent): dicts
    merge key by key, the old keys first; ``_delete_`` in a new dict drops the old keys."""
    if isinstance(new, DictNode):
        new = thaw(new)
    if isinstance(old, DictNode):
        old = thaw(old)
    if not isinstance(new, VDict):
        return old if new is None else new
    for side in (new, old):
        if isinstance(side, VDict | VList) and side.poison is not None:
            raise UnknowableError(side.poison.reason, side.poison)
    if isinstance(old, UnknownNode | Opaque):
        raise UnknowableError("merged into a value that is not known")
    delete = new.entries.get(DELETE_KEY)
    if not isinstance(old, VDict):
        own = {key: item for key, item in new.entries.items() if key != DELETE_KEY}
        return VDict(own, new.origin)
    kept = {} if delete is not None and to_py(delete) else old.entries
    keys = [*kept, *(key for key in new.entries if key not in kept)]
    entries: dict[object, Val] = {}
    for key in keys:
        if key == DELETE_KEY:
            continue
        value = _merged(
            new.child(key) if key in new.entries else None,
            old.child(key) if key in kept else None,
        )
        assert value is not None  # the key is in one of them
        entries[key] = value
    return VDict(entries, new.origin)


def _list_method(
    evaluator: ExpressionEvaluator, node: ast.Call, owner: VList, name: str, arguments: Arguments
) -> Val:
    origin = evaluator.origin(node)
    args = arguments.positional
    if owner.poison is not None:
        raise UnknowableError(owner.poison.reason, owner.poison)
    if owner.is_tuple and name not in ("index", "count"):
        raise UnknowableError(f"tuple has no method `{name}`")
    if name == "append":
        owner.items.append(args[0])
    elif name == "extend":
        added = evaluator.iterate(args[0])
        check_length(len(owner.items), len(added))
        owner.items.extend(added)
    elif name == "insert":
        index = to_py(args[0])
        assert isinstance(index, int)
        owner.items.insert(index, args[1])
    elif name == "pop":
        index = to_py(args[0]) if args else -1
        if not isinstance(index, int):
            raise UnknowableError(f"list index {display_repr(index)} is not an int")
        try:
            value = owner.child(index)
        except IndexError:
            empty = "pop from empty list" if not owner.items else "pop index out of range"
            raise DefiniteError(f"IndexError: {empty}") from None
        del owner.items[index]
        return value
    elif name in ("remove", "index", "count"):
        target = to_py(args[0])
        plain = [to_py(item) for item in owner.items]
        if name == "count":
            return ScalarNode(plain.count(target), origin)
        if target not in plain:
            raise UnknowableError(f"{display_repr(target)} is not in the list")
        position = plain.index(target)
        if name == "index":
            return ScalarNode(position, origin)
        del owner.items[position]
    elif name == "copy":
        return VList(list(owner.items), False, owner.origin)
    elif name == "clear":
        owner.items.clear()
    elif name == "reverse":
        owner.items.reverse()
    else:
        raise UnknowableError(f"list method `{name}` is not evaluated")
    return ScalarNode(None, origin)
