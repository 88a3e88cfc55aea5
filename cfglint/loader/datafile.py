"""``.yaml``/``.yml``/``.json`` configs: parsed with ruamel.yaml, which keeps positions."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cfglint.loader.problems import fail
from cfglint.types import ConfigNode, DictNode, Origin, ScalarNode, SequenceNode, Span


def load_data_file(path: Path, text: str, is_leaf: bool = True) -> DictNode:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if path.suffix == ".json":
        import json

        try:  # MMEngine reads JSON with the json module: report its errors the same way
            json.loads(text)
        except json.JSONDecodeError as error:
            raise fail(
                "CL901", f"invalid JSON: {error.msg}", path, error.lineno, error.colno
            ) from None
    try:
        data = YAML(typ="rt").load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise fail("CL901", f"invalid YAML: {error.problem}", path, line, column) from None
    except YAMLError as error:
        raise fail("CL901", f"invalid YAML: {error}", path) from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        if is_leaf:
            # A list or a scalar at the top is a data file (class names, a split) that happens
            # to sit among the configs, not a broken config: skipped (CL907, a warning).
            kind = "list" if isinstance(data, list) else "scalar"
            raise fail("CL907", f"not a config (the top level is a {kind}): skipped", path)
        raise fail("CL902", "the file is not a mapping of config keys", path)
    root = _convert(data, path, (path,), 1, 1)
    assert isinstance(root, DictNode)
    return root


def _origin(path: Path, chain: tuple[Path, ...], line: int, column: int, width: int) -> Origin:
    return Origin(Span(path, line, column, line, column + width), chain)


def _convert(data: Any, path: Path, chain: tuple[Path, ...], line: int, column: int) -> ConfigNode:
    if isinstance(data, Mapping):
        entries: dict[object, ConfigNode] = {}
        lc = getattr(data, "lc", None)
        for key, value in data.items():
            value_line, value_column = line, column
            if lc is not None:
                try:
                    value_line, value_column = (part + 1 for part in lc.value(key))
                except (KeyError, TypeError):
                    value_line, value_column = (part + 1 for part in lc.key(key))
            entries[_plain(key)] = _convert(value, path, chain, value_line, value_column)
        return DictNode(entries, _origin(path, chain, line, column, 1))
    if isinstance(data, list | tuple):
        items: list[ConfigNode] = []
        lc = getattr(data, "lc", None)
        for index, value in enumerate(data):
            item_line, item_column = line, column
            if lc is not None:
                with contextlib.suppress(KeyError, TypeError):
                    item_line, item_column = (part + 1 for part in lc.item(index))
            items.append(_convert(value, path, chain, item_line, item_column))
        return SequenceNode(tuple(items), False, _origin(path, chain, line, column, 1))
    value = _plain(data)
    return ScalarNode(value, _origin(path, chain, line, column, len(str(value))))


def _plain(value: Any) -> Any:
    """ruamel's scalar subclasses (ScalarFloat, CommentedSeq keys...) as builtin values."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value
