"""Functions of the entry script, called with their arguments (never executed).

A call binds the arguments as Python does (positional, keyword, defaults evaluated when the
function was defined, `*args`, `**kwargs`) into a new scope that sees the scopes the function was
defined in (a nested helper sees its enclosing function's names); `return` ends the call.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from cfglint.loader.calls import Arguments
from cfglint.loader.values import DefiniteError, Val, VDict, VList
from cfglint.types import Origin

MAX_CALL_DEPTH = 24


class Return(Exception):
    """`return value` inside a function of the script."""

    def __init__(self, value: Val) -> None:
        super().__init__("return")
        self.value = value


@dataclass
class ScriptFunction:
    """A function of the script: its definition, the scopes it closes over, its defaults."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    closure: tuple[dict[str, Val], ...]
    defaults: tuple[Val, ...]
    kw_defaults: dict[str, Val]


def entries(named: dict[str, Val]) -> dict[object, Val]:
    """Names and values as a dict's entries (keyword arguments, a namespace)."""
    return {name: value for name, value in named.items()}


def bind_arguments(
    function: ScriptFunction, arguments: Arguments, origin: Origin
) -> dict[str, Val]:
    spec = function.node.args
    names = [argument.arg for argument in [*spec.posonlyargs, *spec.args]]
    scope: dict[str, Val] = {}
    positional = list(arguments.positional)
    for name, value in zip(names, positional, strict=False):
        scope[name] = value
    extra = positional[len(names) :]
    if spec.vararg is not None:
        scope[spec.vararg.arg] = VList(extra, True, origin)
    elif extra:
        raise DefiniteError(
            f"TypeError: {function.node.name}() takes {len(names)} positional arguments"
        )
    keywords = dict(arguments.keywords)
    for name in [*names, *(argument.arg for argument in spec.kwonlyargs)]:
        if name in keywords:
            if name in scope:
                raise DefiniteError(
                    f"TypeError: {function.node.name}() got multiple values for '{name}'"
                )
            scope[name] = keywords.pop(name)
    if spec.kwarg is not None:
        scope[spec.kwarg.arg] = VDict(entries(keywords), origin)
    elif keywords:
        raise DefiniteError(f"TypeError: {function.node.name}() got an unexpected keyword argument")
    defaults = function.defaults
    for name, default in zip(names[len(names) - len(defaults) :], defaults, strict=True):
        scope.setdefault(name, default)
    for name, default in function.kw_defaults.items():
        scope.setdefault(name, default)
    missing = [name for name in [*names, *(a.arg for a in spec.kwonlyargs)] if name not in scope]
    if missing:
        raise DefiniteError(f"TypeError: {function.node.name}() missing argument '{missing[0]}'")
    return scope
