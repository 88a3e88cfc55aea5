"""MMEngine's lazy-import mode (``Config._parse_lazy_import``), resolved without importing or
running anything.

A ``.py`` config with ``with read_base():`` or imports beyond the standard library is loaded
this way by MMEngine 0.10.7:

1. The first top-level ``with read_base():`` block is unindented; each ``from M import ...`` in
   it names a base *module* ``M``: ``.x.y`` is ``x/y.py`` beside the config (one more dot, one
   folder up), ``pkg.x.y`` is ``x/y.py`` in the installed package ``pkg``. Each base module is
   parsed the same way, by itself, once per import (two imports of one module string share one
   result; two strings for one file do not).
2. Before the file runs, its ``from M import *`` / ``from M import a as b`` of base modules
   copy the base's names (every name the base's code bound, imports included) into the file's
   globals. Base dicts are ``ConfigDict``\\s there (attribute access, recursive ``update``);
   nothing merges: ``model = dict(...)`` replaces the base's ``model`` (``_delete_`` is just a
   key), ``model.update(...)`` changes it.
3. Other imports are not run: ``from torch.optim import SGD`` binds a ``LazyObject``, rendered
   by ``Config.to_dict()`` as ``torch.optim.SGD`` (a :class:`~cfglint.types.LazyImport` here);
   a top-level ``import mmdet.models`` binds ``mmdet`` to one. Standard-library imports run.
4. The file's code runs; every name it leaves is a key, except ``__dunder__`` names and the
   names imported here or in any base (``imported``), which ``to_dict()`` drops.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cfglint.codes import MISSING_BASE, MMENGINE_REFUSES
from cfglint.loader.bases import installed_package_dir
from cfglint.loader.problems import LoadError
from cfglint.loader.pyfile import is_builtin_module
from cfglint.loader.rebase import rebase, rebase_origin
from cfglint.loader.source import SourceText
from cfglint.loader.statements import StatementRunner
from cfglint.loader.textsub import NO_PLACEHOLDERS
from cfglint.loader.values import Opaque, Val, VDict, freeze
from cfglint.types import (
    ConfigNode,
    DictNode,
    LazyImport,
    Origin,
    Span,
    UnknownNode,
)

# Names MMEngine's lazy path keeps out of a config besides dunders (its own helper).
_HIDDEN = frozenset({"LazyObject"})
_CONFIG_FILE = "the path MMEngine was given for the file (it depends on how it is called)"

Exported = ConfigNode | Opaque


class LazyModule:
    """One file parsed in lazy-import mode: every name its code left bound (what ``from M
    import *`` copies), the names MMEngine counts as imported, and the files that took part."""

    __slots__ = ("files", "imported", "names")

    def __init__(
        self, names: dict[str, Exported], imported: frozenset[str], files: tuple[Path, ...]
    ) -> None:
        self.names = names
        self.imported = imported
        self.files = files

    def config_root(self, path: Path) -> DictNode:
        """The config ``Config.fromfile(path).to_dict()`` gives: the imported names left out."""
        entries: dict[object, ConfigNode] = {
            name: value if not isinstance(value, Opaque) else freeze(value)
            for name, value in self.names.items()
            if name not in self.imported
        }
        return DictNode(entries, Origin(Span(path, 1, 1, 1, 1), (path,)))


ResolveModule = Callable[[Path, Span], LazyModule]


def resolve_lazy(source: SourceText, tree: ast.Module, resolve_module: ResolveModule) -> LazyModule:
    """``_parse_lazy_import`` of one file: its base modules first, then its own code."""
    path = source.path
    body, base_imports = _read_base_block(source, tree)
    modules: dict[str, LazyModule] = {}
    files: list[Path] = [path]
    imported: set[str] = set()
    for node in base_imports:
        module = "." * node.level + str(node.module)
        span = source.span(node)
        resolved = resolve_module(base_module_file(module, path, span), span)
        modules[module] = resolved  # MMEngine keeps the last parse of a module imported twice
        files.extend(file for file in resolved.files if file not in files)
        imported |= resolved.imported

    runner = LazyRunner(source, (path,), VDict({}, resolved_origin(path)))
    runner.namespace.clear()
    runner.namespace["__file__"] = UnknownNode("__file__", _CONFIG_FILE, resolved_origin(path))
    module_dicts = {
        module: VDict(
            {name: _rebased(value, (path,)) for name, value in resolved.names.items()},
            resolved_origin(path),
            config_dict=True,
        )
        for module, resolved in modules.items()
    }
    imported |= runner.transform(tree, module_dicts)
    imported |= runner.hoist(body)
    runner.run(body)

    names: dict[str, Exported] = {}
    for name, value in runner.namespace.items():
        if name.startswith("__") or name in _HIDDEN:
            continue
        names[name] = value if isinstance(value, Opaque) and value.kind != "lazy" else freeze(value)
    return LazyModule(names, frozenset(imported), tuple(files))


def resolved_origin(path: Path) -> Origin:
    return Origin(Span(path, 1, 1, 1, 1), (path,))


def _rebased(value: Exported, prefix: tuple[Path, ...]) -> Val:
    if isinstance(value, Opaque):
        return Opaque(value.kind, value.name, rebase_origin(value.origin, prefix), value.py)
    return rebase(value, prefix)


def _read_base_block(
    source: SourceText, tree: ast.Module
) -> tuple[list[ast.stmt], list[ast.ImportFrom]]:
    """MMEngine's ``_get_base_modules``: the module body with the first top-level ``with``
    unindented (it must be ``read_base()``), and the base imports in it."""
    body = list(tree.body)
    for index, node in enumerate(body):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "_base_"
        ):
            raise LoadError(
                MMENGINE_REFUSES,
                "`_base_ = ...` in a lazy-import config: MMEngine refuses to mix the two styles "
                "(inherit with `with read_base():` imports instead)",
                source.span(node),
            )
        if not isinstance(node, ast.With):
            continue
        expression = node.items[0].context_expr
        if (
            not isinstance(expression, ast.Call)
            or not isinstance(expression.func, ast.Name)
            or expression.func.id != "read_base"
            or len(node.items) > 1
        ):
            raise LoadError(
                MMENGINE_REFUSES,
                "only `with read_base():` may be used in a config (MMEngine)",
                source.span(node),
            )
        imports: list[ast.ImportFrom] = []
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.module is None:
                raise LoadError(
                    MMENGINE_REFUSES,
                    "only `from <config module> import ...` may be written in "
                    "`with read_base():` (MMEngine)",
                    source.span(statement),
                )
            imports.append(statement)
        return [*body[:index], *node.body, *body[index + 1 :]], imports
    return body, []


def read_base_modules(text: str) -> list[str]:
    """The base modules a file's first top-level ``with read_base():`` imports, as written
    (``.._base_.x``), without judging the file: for finding who inherits a file."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    for node in tree.body:
        if isinstance(node, ast.With):
            return [
                "." * statement.level + statement.module
                for statement in node.body
                if isinstance(statement, ast.ImportFrom) and statement.module is not None
            ]
    return []


def relative_module_path(module: str) -> str | None:
    """A relative base module as a path from the config's folder (``.._base_.x``:
    ``../_base_/x.py``); None for a package module."""
    level = len(module) - len(module.lstrip("."))
    if not level:
        return None
    return os.path.join(*[".."] * (level - 1), module[level:].replace(".", "/") + ".py")


def base_module_file(module: str, config: Path, span: Span) -> Path:
    """The file MMEngine reads for a base module: relative to the config, or in a package
    (found from its metadata or the import path, never imported)."""
    relative = relative_module_path(module)
    if relative is not None:
        candidate = os.path.join(os.path.dirname(config), relative)
    else:
        package, *rest = module.split(".")
        if not rest:
            raise LoadError(
                MMENGINE_REFUSES,
                f"`{module}`: a base config must be a module of a package "
                "(`from mmdet.configs.retinanet.retinanet_r50_fpn_1x_coco import *`), MMEngine "
                "refuses a bare package",
                span,
            )
        package_dir = installed_package_dir(package)
        if package_dir is None:
            raise LoadError(MISSING_BASE, f"`{module}`: package `{package}` is not installed", span)
        candidate = os.path.join(package_dir, *rest) + ".py"
    if not os.path.isfile(candidate):
        raise LoadError(MISSING_BASE, f"base config `{module}` not found: {candidate}", span)
    return Path(os.path.abspath(candidate))


def _preorder(tree: ast.AST) -> Iterator[ast.AST]:
    """Nodes in the order ``ast.NodeTransformer`` visits them (depth first, fields in order)."""
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(reversed(list(ast.iter_child_nodes(node))))


def _lazy_object(module: str, imported: str | None) -> LazyImport:
    """``LazyObject(module, imported)`` as ``to_dict()`` renders it, and its attributes."""
    if imported is None:
        return LazyImport(f"{module}.{module}", module)
    rendered = f"{module}.{imported}"
    return LazyImport(rendered, rendered)


class LazyRunner(StatementRunner):
    """The statement runner with the lazy path's imports: base names bound before the file
    runs, other imports bound to :class:`LazyImport` values, ``_base_`` an ordinary name."""

    def __init__(self, source: SourceText, chain: tuple[Path, ...], base: VDict) -> None:
        super().__init__(source, chain, base, NO_PLACEHOLDERS)
        self.done: set[int] = set()  # imports already carried out before the file runs

    def transform(self, tree: ast.Module, module_dicts: dict[str, VDict]) -> set[str]:
        """``ImportTransformer``: checks every import of the file and binds the names of base
        modules; the names it counts as imported."""
        imported: set[str] = set()
        for node in _preorder(tree):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + str(node.module)
                if not is_builtin_module(module) and module in module_dicts:
                    self._bind_base_names(node, module_dicts[module])
                    self.done.add(id(node))
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        raise LoadError(
                            MMENGINE_REFUSES,
                            f"`from {module} import *` of a module that is not a base config "
                            "(MMEngine allows `*` only in `with read_base():`)",
                            self.source.span(node),
                        )
                    imported.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                if len(node.names) != 1:
                    raise LoadError(
                        MMENGINE_REFUSES,
                        "one module per `import` line in a lazy-import config (MMEngine)",
                        self.source.span(node),
                    )
                if node.names[0].asname is not None:
                    imported.add(node.names[0].asname)
        return imported

    def _bind_base_names(self, node: ast.ImportFrom, names: VDict) -> None:
        for alias in node.names:
            if alias.name == "*":
                for name in list(names.entries):
                    self.namespace[str(name)] = names.child(name)
                return
            if alias.name not in names.entries:
                raise LoadError(
                    MMENGINE_REFUSES,
                    f"`{alias.name}` is not defined in base config `{node.module}`",
                    self.source.span(node),
                )
            self.namespace[alias.asname or alias.name] = names.child(alias.name)

    def hoist(self, body: list[ast.stmt]) -> set[str]:
        """``_gather_abs_import_lazyobj``: each top-level ``import a.b`` of a package that is
        not the standard library binds ``a`` to a LazyObject before the file runs."""
        gathered: dict[str, ast.Import] = {}
        for node in body:
            if isinstance(node, ast.Import) and node.names[0].asname is None:
                name = node.names[0].name
                if not is_builtin_module(name):
                    gathered.setdefault(name.split(".")[0], node)
                    self.done.add(id(node))
        for top, node in reversed(gathered.items()):
            value = LazyImport(f"{top}.{top}", top)
            self.namespace[top] = Opaque("lazy", value.path, self.origin(node), py=value)
        return set(gathered)

    def _stmt_Assign(self, node: ast.Assign) -> None:
        value = self.item(node.value)
        for target in node.targets:
            self.assign(target, value)

    def _import_bindings(self, node: ast.Import | ast.ImportFrom) -> list[tuple[str, Val]]:
        if id(node) in self.done:
            return []
        origin = self.origin(node)
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + str(node.module)
            if is_builtin_module(module):
                return super()._import_bindings(node)
            return [
                (alias.asname or alias.name, _lazy(_lazy_object(module, alias.name), origin))
                for alias in node.names
            ]
        alias = node.names[0]
        if alias.asname is not None:
            if is_builtin_module(alias.name.split(".")[0]):
                return super()._import_bindings(node)
            return [(alias.asname, _lazy(_lazy_object(alias.name, None), origin))]
        if is_builtin_module(alias.name):
            return super()._import_bindings(node)
        # Not at the top level: MMEngine leaves it to Python, which imports the package.
        reason = f"`import {alias.name}` in a block: MMEngine really imports it"
        return [(alias.name.split(".")[0], self.unknown(node, reason))]


def _lazy(value: LazyImport, origin: Origin) -> Opaque:
    return Opaque("lazy", value.path, origin, py=value)
