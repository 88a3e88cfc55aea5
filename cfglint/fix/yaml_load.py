"""ruamel.yaml entry points: the node graph with positions, plain data, and parse errors."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError

from cfglint.fix.errors import FixNotApplicable


def compose(text: str) -> Any:
    """The root node (marks carry character offsets into ``text``), None for an empty file."""
    try:
        return YAML(typ="rt").compose(text)
    except YAMLError as error:
        raise FixNotApplicable(f"the file does not parse: {_one_line(error)}") from None


class _Opaque:
    """A tagged value the fixer must not build (`!!python/object/apply:...`): equal to nothing,
    so a fix never takes it for the value it wants."""

    def __init__(self, tag: str) -> None:
        self.tag = tag


class _DataConstructor(SafeConstructor):
    """Plain data as MMEngine reads the file, without ever building an object: `!!python/tuple`
    is a tuple (documented, and used in real configs); any other tag the safe loader does not
    know is an opaque value instead of an error."""

    def construct_python_tuple(self, node: Any) -> tuple[Any, ...]:
        return tuple(self.construct_sequence(node))

    def construct_unknown(self, node: Any) -> _Opaque:
        return _Opaque(str(node.tag))


_DataConstructor.add_constructor(
    "tag:yaml.org,2002:python/tuple", _DataConstructor.construct_python_tuple
)
_DataConstructor.add_constructor(None, _DataConstructor.construct_unknown)


def load(text: str) -> Any:
    return _data_yaml().load(text)


def data_of(root: Any) -> Any:
    """The plain data of a composed file, without parsing its text again."""
    return _data_yaml().constructor.construct_document(root)


def _data_yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _DataConstructor
    return yaml


def yaml_error(text: str) -> str | None:
    try:
        load(text)
    except YAMLError as error:
        return _one_line(error)
    return None


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
