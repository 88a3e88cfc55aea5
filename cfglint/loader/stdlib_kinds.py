"""Whether a name imported from the standard library is a module or a Python function.

MMEngine drops a config's module-level names whose value is a module or a Python function
(``types.FunctionType``) and keeps everything else: ``sys.platform``, ``math.sqrt`` (a builtin
function), ``collections.OrderedDict`` (a class). cfglint imports nothing a config names, so it
reads the standard library's own source to tell: the last top-level binding of the name in the
module decides. C modules hold no Python functions. When the source does not say (a value
computed at import time, ``from x import *`` of a Python module), the answer is "unsure" and the
name is kept as an unknown value.

Its answers are remembered for the process, not per command (cfglint/session.py): they read the
interpreter's own standard library, which does not change while the interpreter runs.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import os
import sys
from functools import cache
from typing import Literal

Kind = Literal["module", "function", "other", "unsure"]
_STDLIB = frozenset(sys.stdlib_module_names)
# The only other imports a plain (not lazy-import) config can have: `mmengine.config`'s names.
_MMENGINE: dict[str, Kind] = {
    "mmengine.Config": "other",
    "mmengine.config.Config": "other",
    "mmengine.config.ConfigDict": "other",
    "mmengine.config.DictAction": "other",
    "mmengine.config.read_base": "function",
}
_MAX_DEPTH = 8  # `from a import b` chains followed at most this far


def import_kind(qualified: str) -> Kind:
    """The kind of ``qualified`` (``os.path.join``, ``sys.platform``) when a config reads it."""
    if qualified in _MMENGINE:
        return _MMENGINE[qualified]
    parts = qualified.split(".")
    if not parts[0] or parts[0] not in _STDLIB:
        return "unsure"
    return _kind_in(parts[0], tuple(parts[1:]), 0)


def _kind_in(module: str, attributes: tuple[str, ...], depth: int) -> Kind:
    if not attributes:
        return "module"
    if depth > _MAX_DEPTH:
        return "unsure"
    source = _module_source(module)
    if source is None:
        return "other" if _is_c_module(module) else "unsure"
    name, rest = attributes[0], attributes[1:]
    bindings = _bindings(source)
    binding = bindings.get(name)
    if binding is None:
        submodule = f"{module}.{name}"
        if _module_source(submodule) is not None or _is_c_module(submodule):
            return _kind_in(submodule, rest, depth + 1)
        star = bindings.get("*")
        return "other" if star is not None and star[0] == "c-star" and not rest else "unsure"
    kind, target = binding
    if kind == "import":  # `import x as name` or `from m import x as name`
        module_name, _, attribute = target.partition(":")
        if attribute:
            return _kind_in(module_name, (attribute, *rest), depth + 1)
        return _kind_in(module_name, rest, depth + 1)
    if kind == "alias":  # `name = other` at top level
        return _kind_in(module, (target, *rest), depth + 1)
    if kind == "unsure":
        return "unsure"
    if rest:  # an attribute of a function, class or value
        return "other" if kind in ("class", "value") else "unsure"
    return "function" if kind == "function" else "other"


@cache
def _module_source(module: str) -> str | None:
    """The path of a pure-Python stdlib module, found without importing it or its parents."""
    parts = module.split(".")
    try:
        spec = importlib.util.find_spec(parts[0]) if len(parts) == 1 else None
    except (ImportError, ValueError):
        return None
    if len(parts) > 1:
        parent = _module_source(".".join(parts[:-1]))
        if parent is None or not parent.endswith("__init__.py"):
            return None
        folder = os.path.dirname(parent)
        for candidate in (
            os.path.join(folder, parts[-1] + ".py"),
            os.path.join(folder, parts[-1], "__init__.py"),
        ):
            if os.path.isfile(candidate):
                return candidate
        return None
    if spec is None:
        return None
    origin = _origin_file(spec)
    return origin if origin is not None and origin.endswith(".py") else None


def _origin_file(spec: importlib.machinery.ModuleSpec) -> str | None:
    if spec.origin == "frozen":  # `os`, `posixpath`...: frozen, their source still on disk
        filename = getattr(spec.loader_state, "filename", None)
        return filename if isinstance(filename, str) else None
    return spec.origin if isinstance(spec.origin, str) else None


@cache
def _is_c_module(module: str) -> bool:
    if module in sys.builtin_module_names:
        return True
    if "." in module:
        return False
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin == "frozen":
        return False
    return isinstance(spec.origin, str) and not spec.origin.endswith(".py")


@cache
def _bindings(path: str) -> dict[str, tuple[str, str]]:
    """Top-level name -> (kind, target), the last binding in source order winning."""
    try:
        with open(path, encoding="utf-8") as stream:
            tree = ast.parse(stream.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return {}
    found: dict[str, tuple[str, str]] = {}
    package = os.path.basename(path) == "__init__.py"
    module = _module_name(path, package)
    for statement in _top_level(tree.body):
        _record(statement, found, module, package)
    return found


def _module_name(path: str, package: bool) -> str:
    relative = os.path.relpath(path, os.path.dirname(os.__file__))
    dotted = relative[: -len(".py")].replace(os.sep, ".")
    return dotted[: -len(".__init__")] if package else dotted


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    statements: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If):
            statements.extend(_top_level(statement.body))
            statements.extend(_top_level(statement.orelse))
        elif isinstance(statement, ast.Try):
            statements.extend(_top_level(statement.body))
            for handler in statement.handlers:
                statements.extend(_top_level(handler.body))
            statements.extend(_top_level(statement.orelse))
        else:
            statements.append(statement)
    return statements


def _record(
    statement: ast.stmt, found: dict[str, tuple[str, str]], module: str, package: bool
) -> None:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        kind = "class" if isinstance(statement, ast.ClassDef) else "function"
        found[statement.name] = ("unsure" if statement.decorator_list else kind, "")
    elif isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.asname:
                found[alias.asname] = ("import", alias.name)
            else:
                top = alias.name.split(".")[0]
                found[top] = ("import", top)
    elif isinstance(statement, ast.ImportFrom):
        source = _absolute(statement, module, package)
        for alias in statement.names:
            if alias.name == "*":
                _star(source, found)
            else:
                found[alias.asname or alias.name] = ("import", f"{source}:{alias.name}")
    elif isinstance(statement, ast.Assign | ast.AnnAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        value = statement.value
        for target in targets:
            if isinstance(target, ast.Name):
                if isinstance(value, ast.Name):
                    found[target.id] = ("alias", value.id)
                elif isinstance(value, ast.Constant | ast.Tuple | ast.List | ast.Dict):
                    found[target.id] = ("value", "")
                else:
                    found[target.id] = ("unsure", "")


def _absolute(statement: ast.ImportFrom, module: str, package: bool) -> str:
    if not statement.level:
        return statement.module or ""
    parts = module.split(".")
    keep = len(parts) - statement.level + (1 if package else 0)
    base = ".".join(parts[: max(keep, 0)])
    return f"{base}.{statement.module}" if statement.module else base


def _star(source: str, found: dict[str, tuple[str, str]]) -> None:
    """``from source import *``: it may replace any name bound so far."""
    for name in list(found):
        found[name] = ("unsure", "")
    found["*"] = ("c-star", source) if _is_c_module(source) else ("unsure", "")
