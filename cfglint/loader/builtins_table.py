"""The pure functions cfglint evaluates: builtins, and a few stdlib functions on plain data.

Everything here is deterministic and touches neither the file system nor the environment.
"""

from __future__ import annotations

import builtins
import math
import posixpath
from collections.abc import Callable

# Builtins evaluated on plain Python values (arguments converted with ``to_py``).
PURE_BUILTINS: dict[str, Callable[..., object]] = {
    name: getattr(builtins, name)
    for name in (
        "abs",
        "all",
        "any",
        "bin",
        "bool",
        "chr",
        "divmod",
        "float",
        "format",
        "frozenset",
        "hex",
        "int",
        "max",
        "min",
        "oct",
        "ord",
        "pow",
        "repr",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "range",
        "slice",
        "hash",
        "ascii",
        "callable",
    )
}

# Builtins evaluated on cfglint's own values, so element origins survive.
VALUE_BUILTINS = frozenset(
    {
        "dict",
        "list",
        "tuple",
        "len",
        "zip",
        "enumerate",
        "reversed",
        "isinstance",
        "print",
        "type",
        "getattr",
        "hasattr",
        "iter",
        "next",
        "map",
        "filter",
    }
)

TYPE_NAMES: dict[str, type] = {
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "set": set,
    "frozenset": frozenset,
    "bytes": bytes,
    "complex": complex,
    "type": type,
    "object": object,
    "range": range,
    "slice": slice,
}

# `ValueError` and the like: a config may name them (`raise`, `except`, `isinstance`).
EXCEPTION_TYPES: dict[str, type[BaseException]] = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}

# Every name a config finds in the builtins module when it runs (`bytearray`, `dir`,
# `memoryview`...): one it does not evaluate is unknown, never a NameError MMEngine would not
# raise. `__name__` is the module's own (the evaluator answers it: 'builtins').
BUILTIN_NAMES = (
    frozenset(PURE_BUILTINS)
    | VALUE_BUILTINS
    | frozenset(TYPE_NAMES)
    | frozenset(EXCEPTION_TYPES)
    | frozenset(name for name in vars(builtins) if name != "__name__")
    | frozenset({"None", "True", "False"})
)

PURE_MODULE_FUNCTIONS: dict[str, Callable[..., object]] = {
    **{
        f"math.{name}": getattr(math, name)
        for name in (
            "ceil",
            "floor",
            "sqrt",
            "log",
            "log2",
            "log10",
            "exp",
            "pow",
            "fabs",
            "gcd",
            "isclose",
            "cos",
            "sin",
            "tan",
            "pi",
            "trunc",
            "prod",
            "comb",
            "factorial",
            "isqrt",
        )
        if callable(getattr(math, name, None))
    },
    **{
        f"os.path.{name}": getattr(posixpath, name)
        for name in (
            "join",
            "basename",
            "dirname",
            "splitext",
            "split",
            "normpath",
        )
    },
}

MODULE_CONSTANTS: dict[str, object] = {
    "math.pi": math.pi,
    "math.e": math.e,
    "math.tau": math.tau,
    "math.inf": math.inf,
    "math.nan": math.nan,
    "os.sep": "/",
    "os.path.sep": "/",
}

STR_METHODS = frozenset(
    {
        "format",
        "join",
        "replace",
        "split",
        "rsplit",
        "strip",
        "lstrip",
        "rstrip",
        "upper",
        "lower",
        "startswith",
        "endswith",
        "find",
        "rfind",
        "index",
        "rindex",
        "partition",
        "rpartition",
        "zfill",
        "title",
        "capitalize",
        "count",
        "isdigit",
        "isalpha",
        "isalnum",
        "removeprefix",
        "removesuffix",
        "center",
        "ljust",
        "rjust",
        "splitlines",
        "casefold",
        "swapcase",
        "isupper",
        "islower",
        "isspace",
        "isnumeric",
        "format_map",
        "expandtabs",
        "encode",
        "decode",
        "hex",
        "is_integer",
        "bit_length",
        "conjugate",
        "as_integer_ratio",
    }
)

DICT_METHODS = frozenset(
    {
        "get",
        "pop",
        "update",
        "copy",
        "items",
        "keys",
        "values",
        "setdefault",
        "clear",
        "popitem",
        "merge",
        "to_dict",
        "fromkeys",
    }
)
# Methods only MMEngine's ConfigDict has (a plain dict raises AttributeError).
CONFIG_DICT_METHODS = frozenset({"merge", "to_dict"})
LIST_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "index",
        "count",
        "copy",
        "clear",
        "reverse",
        "sort",
    }
)
MUTATING_METHODS = frozenset(
    {
        "pop",
        "update",
        "setdefault",
        "clear",
        "popitem",
        "merge",
        "append",
        "extend",
        "insert",
        "remove",
        "reverse",
        "sort",
    }
)
