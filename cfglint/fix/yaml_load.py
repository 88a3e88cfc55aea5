"""ruamel.yaml entry points: the node graph with positions, plain data, and parse errors."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from cfglint.fix.errors import FixNotApplicable


def compose(text: str) -> Any:
    """The root node (marks carry character offsets into ``text``), None for an empty file."""
    try:
        return YAML(typ="rt").compose(text)
    except YAMLError as error:
        raise FixNotApplicable(f"the file does not parse: {_one_line(error)}") from None


def load(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(text)


def yaml_error(text: str) -> str | None:
    try:
        load(text)
    except YAMLError as error:
        return _one_line(error)
    return None


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
