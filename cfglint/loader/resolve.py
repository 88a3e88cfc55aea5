"""One file's resolution: its bases merged, its own code evaluated, the result merged over them.

Mirrors MMEngine 0.10.7's ``Config._file2dict`` step by step. Results are memoised per file by
:class:`cfglint.loader.Loader`; chains in a file's result start at that file.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from cfglint.codes import MISSING_BASE, MMENGINE_REFUSES, SYNTAX_ERROR
from cfglint.loader.bases import base_exists, resolve_base
from cfglint.loader.datafile import DataFile, load_data_file, substitute_base_vars
from cfglint.loader.lazy import LazyModule
from cfglint.loader.merge import apply_scope, merge_into
from cfglint.loader.problems import LoadError, fail
from cfglint.loader.pyfile import ConfigStyle, base_assignment, config_style
from cfglint.loader.rebase import RebasedEntries
from cfglint.loader.source import SourceText, read_config_text
from cfglint.loader.statements import StatementRunner
from cfglint.loader.stdlib_kinds import import_kind
from cfglint.loader.textsub import FilePlaceholders, read_placeholders
from cfglint.loader.values import (
    Opaque,
    SubstituteBaseVar,
    UnknowableError,
    Val,
    VDict,
    base_var_value,
    freeze,
    to_py,
)
from cfglint.paths import display_path
from cfglint.types import ConfigNode, DictNode, Origin, Span, UnknownNode

DEPRECATION_KEY = "_deprecation_"
# `_base_` as a name in code (`_base_.x`, `{{_base_.x}}`), not in `_base_ = ...` or a base path.
# The lookbehind sits after the literal (same test, 7 characters wide) so that the regex engine
# can jump between `_base_` occurrences instead of trying every position: 25x faster.
_BASE_USE = re.compile(r"_base_(?<![\w/.]_base_)(?![\w/])(?!\s*=[^=])")


class FileResolution:
    """One file's resolved tree and the files that took part (itself first)."""

    __slots__ = ("_top_entries", "files", "lazy", "root")

    def __init__(self, root: DictNode, files: tuple[Path, ...], *, lazy: bool = False) -> None:
        self.root = root
        self.files = files
        self.lazy = lazy  # resolved in MMEngine's lazy-import mode
        self._top_entries: dict[object, ConfigNode] | None = None

    def top_entries(self) -> dict[object, ConfigNode]:
        """The root's entries as a plain dict, built on first use as a base.

        A shared base is read whole by each of the hundreds of configs inheriting it; going
        through its lazy overlay and rebase views key by key each time cost more than the copy.
        The values are the very objects those views hand out (they cache what they rebase).
        """
        if self._top_entries is None:
            self._top_entries = dict(self.root.entries)
        return self._top_entries


ResolveBase = Callable[[Path, Span], FileResolution]
ParseLazy = Callable[[SourceText, ast.Module], LazyModule]


def file_origin(path: Path) -> Origin:
    return Origin(Span(path, 1, 1, 1, 1), (path,))


def resolve_file(
    path: Path,
    environ: Mapping[str, str],
    resolve_base_file: ResolveBase,
    parse_lazy: ParseLazy,
    is_leaf: bool,
) -> FileResolution:
    text = read_config_text(path)
    tree, style = _py_tree(path, text, is_leaf) if path.suffix == ".py" else (None, "plain")
    if tree is not None and style == "lazy":
        # MMEngine's lazy-import path: its own inheritance, no placeholders (lazy.py).
        module = parse_lazy(SourceText(path, text), tree)
        return FileResolution(module.config_root(path), module.files, lazy=True)
    # MMEngine substitutes the text before it parses a data file or runs a `.py` one, and
    # fails on a placeholder it cannot fill in.
    placeholders = read_placeholders(path, text, environ)
    source: SourceText | None = None
    data: DataFile | None = None
    if tree is not None:
        # Built once per file, for reading `_base_` and for running the file.
        source = SourceText(path, text)
        entries = _base_entries_py(source, tree, placeholders)
    else:
        data = load_data_file(path, text, placeholders, is_leaf)
        entries = _base_entries_data(path, data.root)

    base_entries: dict[object, ConfigNode] = {}
    base_owner: dict[object, Path] = {}
    files: list[Path] = [path]
    seen = {path}
    for entry, span in entries:
        base_path, scope = resolve_base(entry, path, span)
        if not base_exists(base_path):
            shown = display_path(base_path)
            raise LoadError(MISSING_BASE, f"`_base_` file not found: {entry} ({shown})", span)
        resolution = resolve_base_file(base_path, span)
        files.extend(file for file in resolution.files if file not in seen)
        seen.update(resolution.files)
        top = resolution.top_entries()
        if not base_entries.keys().isdisjoint(top):  # set operations in C: no loop per key
            key = next(key for key in top if key in base_entries)
            raise LoadError(
                MMENGINE_REFUSES,
                f"key `{key}` is defined in two bases, {base_owner[key].name} and "
                f"{base_path.name}; MMEngine does not allow duplicate keys among bases",
                span,
            )
        base_owner.update(dict.fromkeys(top, base_path))
        if scope is None:
            base_entries.update(top)
        else:
            scoped = apply_scope(resolution.root, scope, has_scope=True)
            assert isinstance(scoped, DictNode)
            base_entries.update(scoped.entries)

    # Chains are re-rooted at this file only when something reaches an entry (see rebase.py).
    base_view: Mapping[object, ConfigNode] = RebasedEntries(base_entries, (path,))
    if tree is not None:
        assert source is not None
        own, base_view = _evaluate_py(source, tree, base_view, placeholders)
    else:
        assert data is not None
        own = dict(data.root.entries)
        if data.base_tokens:
            own = substitute_base_vars(own, data.base_tokens, base_view)
    own.pop(DEPRECATION_KEY, None)
    own.pop("_base_", None)
    own = {key: value for key, value in own.items() if not _dunder(key)}
    merged = merge_into(own, base_view)
    return FileResolution(DictNode(merged, file_origin(path)), tuple(files))


def _dunder(key: object) -> bool:
    return isinstance(key, str) and key.startswith("__")


def _py_tree(path: Path, text: str, is_leaf: bool) -> tuple[ast.Module, ConfigStyle]:
    """A ``.py`` config's syntax tree and style, unless MMEngine refuses it: a ``with`` that is
    not ``read_base()``, or a lazy-import config used as the ``_base_`` of a plain one."""
    tree = parse_py(path, text)
    style = config_style(tree, text)
    if style == "bad-with":
        raise fail(
            MMENGINE_REFUSES, "only `with read_base():` may be used in a config (MMEngine)", path
        )
    if style == "lazy" and not is_leaf:
        raise fail(
            MMENGINE_REFUSES,
            "a lazy-import config (`read_base()` or non-stdlib imports) cannot be the "
            "`_base_` of a plain config (MMEngine refuses the mix)",
            path,
        )
    return tree, style


def parse_py(path: Path, text: str) -> ast.Module:
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as error:
        line = error.lineno or 1
        column = error.offset or 1
        raise fail(SYNTAX_ERROR, f"syntax error: {error.msg}", path, line, column) from None
    except ValueError as error:  # null bytes
        raise fail(SYNTAX_ERROR, f"syntax error: {error}", path) from None


def _base_entries_py(
    source: SourceText, tree: ast.Module, placeholders: FilePlaceholders
) -> list[tuple[str, Span]]:
    assignment = base_assignment(tree)
    if assignment is None:
        return []
    path = source.path
    runner = StatementRunner(source, (path,), VDict({}, file_origin(path)), placeholders)
    runner.namespace.clear()
    span = source.span(assignment.value)
    try:
        value = to_py(runner.evaluate(assignment.value))
    except UnknowableError as error:
        raise LoadError(
            MISSING_BASE, f"`_base_` cannot be read statically: {error.reason}", span
        ) from None
    return _as_entries(value, span, path)


def _base_entries_data(path: Path, data: DictNode) -> list[tuple[str, Span]]:
    node = data.entries.get("_base_")
    if node is None:
        return []
    try:
        from cfglint.types import to_python

        value = to_python(node)
    except ValueError:
        value = None
    return _as_entries(value, node.origin.span, path)


def _as_entries(value: object, span: Span, path: Path) -> list[tuple[str, Span]]:
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(entry, str) for entry in values):
        raise LoadError(MISSING_BASE, "`_base_` must be a path or a list of paths", span)
    return [(str(entry), span) for entry in values]


def _evaluate_py(
    source: SourceText,
    tree: ast.Module,
    base_view: Mapping[object, ConfigNode],
    placeholders: FilePlaceholders,
) -> tuple[dict[object, ConfigNode], Mapping[object, ConfigNode]]:
    """The file's own keys, and its bases after the code ran (it may change ``_base_``)."""
    path, text = source.path, source.text
    # Only a file that names `_base_` can read or change its bases: the others never thaw them.
    uses_base = "_base_." in text or "_base_[" in text or _BASE_USE.search(text) is not None
    thawed: dict[object, Val] = dict(base_view) if uses_base else {}
    base = VDict(thawed, file_origin(path), config_dict=True)
    runner = StatementRunner(source, (path,), base, placeholders)
    runner.run(tree.body)
    substitute = _base_var_substitution(base, source)
    own: dict[object, ConfigNode] = {}
    for name, value in runner.namespace.items():
        if name == "_base_" or name.startswith("__") or _dropped(value):
            continue
        own[name] = freeze(value, substitute)
    if base.poison is not None:  # code cfglint did not follow could change any base key
        poison = base.poison
        entries = base.entries if uses_base else base_view
        return own, {
            key: UnknownNode(poison.source, poison.reason, value.origin)
            for key, value in entries.items()
        }
    if not uses_base:
        return own, base_view
    after = freeze(base)
    assert isinstance(after, DictNode)
    return own, after.entries


def _dropped(value: Val) -> bool:
    """MMEngine drops modules and Python functions from a config's names."""
    if not isinstance(value, Opaque):
        return False
    if value.kind in ("module", "function"):
        return True
    if value.kind == "import":
        return import_kind(value.name) in ("module", "function")
    return False


def _base_var_substitution(base: VDict, source: SourceText) -> SubstituteBaseVar:
    """MMEngine's ``_substitute_base_vars``: the base value as it is once the file has run.

    A placeholder stored into the bases themselves stays a random string (``freeze``).
    """
    when = f" (once `{source.path.name}` has run)"
    return lambda variable: base_var_value(base, variable, when)


def reserved_key_problem(path: Path, root: DictNode) -> LoadError | None:
    for key in ("filename", "text", "pretty_text", "env_variables"):
        if key in root.entries:
            node = root.entries[key]
            return LoadError(
                MMENGINE_REFUSES, f"`{key}` is reserved by MMEngine's Config", node.origin.span
            )
    return None
