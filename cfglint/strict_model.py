"""Read a mapping a user wrote for cfglint (the settings, a target file) into a frozen dataclass.

The dataclass's type hints say what each key holds: `str`, `int`, `float`, `bool`, a `Literal`,
a union (`X | None`), `tuple[X, ...]`, `dict[str, X]`, `Any`, another such dataclass, and
`Annotated[str, Pattern(...)]` for a string of a given form. Keys are written in kebab-case
(`default-target`), as in pyproject.toml; the field's own name (`default_target`) is read too. A
key cfglint does not know is an error rather than a setting silently ignored; a field without a
default must be given. A class may check what holds between its fields in an `after_read(self)`
method, raising `ReadError` (its location relative to the object).

What is accepted is what these files were accepted with before this reader (Pydantic's lax
mode), so that no file that worked stops working: a string only from a string, a bool also from
0/1 and from the words YAML 1.1 and TOML users write for one (`yes`, `off`, `true`, in any
case), a float also from an int, a tuple from a list (or a YAML set). A union takes a value of
exactly one of its types as it is, otherwise the first type that accepts it. A parser's own
subclasses (ruamel.yaml's block strings, its floats) come out as the plain types. Every error is
one `ReadError`: where (keys and list indices from the top, as the user wrote them) and a short
message.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

Location = tuple[str | int, ...]

T = TypeVar("T")


class ReadError(Exception):
    """A value that does not fit its field: where it is and what is wrong, one line."""

    def __init__(self, message: str, where: Location = ()) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        if not self.where:
            return self.message
        return ".".join(str(part) for part in self.where) + ": " + self.message


@dataclass(frozen=True, slots=True)
class Pattern:
    """`Annotated[str, Pattern(r"CL[0-9]{3}")]`: the whole string matches the expression."""

    regex: str


_GIVEN = "cfglint.strict_model.given"


def given(field_name: str) -> bool:
    """A field the reader sets to whether the mapping gives the field `field_name` (it is never
    read from the mapping itself): for a key whose absence means something else than any value
    it may hold (`default: null` is MMEngine's None; no `default:` is no default at all)."""
    return dataclasses.field(default=False, metadata={_GIVEN: field_name})


def kebab(name: str) -> str:
    return name.replace("_", "-")


def read(cls: type[T], data: object) -> T:
    """`data` (a mapping from TOML or YAML) as an instance of the dataclass `cls`."""
    return cast(T, _dataclass_reader(cls).read(data, ()))


Read = Callable[[object, Location], object]


@dataclass(frozen=True, slots=True)
class _Reader:
    expected: str  # what the value must be, for messages: "a string", "true or false"
    read: Read


def _kind(value: object) -> str:
    """A value as the user wrote it, for "must be ..., not ..."."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return repr(value)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, AbstractSet):
        return "a set"
    return type(value).__name__


def _wrong(expected: str, value: object, where: Location) -> ReadError:
    return ReadError(f"must be {expected}, not {_kind(value)}", where)


def _read_str(value: object, where: Location) -> object:
    if isinstance(value, str):
        return str(value)  # a parser's str subclass (ruamel's block scalars) as a plain str
    raise _wrong("a string", value, where)


def _read_int(value: object, where: Location) -> object:
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise _wrong("an integer", value, where)


def _read_float(value: object, where: Location) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _wrong("a number", value, where)


# The words Pydantic's lax mode read as a bool (any case): YAML 1.1's `yes`/`on`, which a YAML
# 1.2 parser hands over as strings, keep meaning what the user meant.
_TRUE_WORDS = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE_WORDS = frozenset({"0", "off", "f", "false", "n", "no"})


def _read_bool(value: object, where: Location) -> object:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        word = value.lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    raise _wrong("true or false", value, where)


def _read_none(value: object, where: Location) -> object:
    if value is None:
        return None
    raise _wrong("null", value, where)


def _read_any(value: object, where: Location) -> object:
    return value


_SCALARS: dict[object, _Reader] = {
    str: _Reader("a string", _read_str),
    int: _Reader("an integer", _read_int),
    float: _Reader("a number", _read_float),
    bool: _Reader("true or false", _read_bool),
    type(None): _Reader("null", _read_none),
    Any: _Reader("anything", _read_any),
    object: _Reader("anything", _read_any),
}


def _reader(hint: object) -> _Reader:
    """How to read a value of the type `hint` (built once per field)."""
    scalar = _SCALARS.get(hint)
    if scalar is not None:
        return scalar
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        return _annotated(_reader(args[0]), args[1:])
    if origin is Literal:
        return _literal(args)
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _tuple(_reader(args[0]))
    if origin is dict:
        return _dict(_reader(args[0]), _reader(args[1]))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        nested = hint  # its own reader is built on first use: a class may name itself
        return _Reader(
            "a mapping", lambda value, where: _dataclass_reader(nested).read(value, where)
        )
    raise TypeError(f"strict_model cannot read a field of type {hint!r}")


def _annotated(base: _Reader, extras: tuple[object, ...]) -> _Reader:
    patterns = [re.compile(extra.regex) for extra in extras if isinstance(extra, Pattern)]
    if not patterns:
        return base

    def read(value: object, where: Location) -> object:
        text = base.read(value, where)
        for pattern in patterns:
            if not isinstance(text, str) or pattern.fullmatch(text) is None:
                raise ReadError(f"must match `{pattern.pattern}`, not {_kind(text)}", where)
        return text

    return _Reader(base.expected, read)


def _literal(choices: tuple[object, ...]) -> _Reader:
    expected = "one of " + ", ".join(repr(choice) for choice in choices)

    def read(value: object, where: Location) -> object:
        for choice in choices:
            if isinstance(value, type(choice)) and value == choice:
                return choice
        raise _wrong(expected, value, where)

    return _Reader(expected, read)


def _union(members: tuple[object, ...]) -> _Reader:
    others = [member for member in members if member is not type(None)]
    if len(others) == 1 and len(members) == 2:
        # `X | None`: an error inside X is reported as X's, where it is.
        inner = _reader(others[0])

        def nullable(value: object, where: Location) -> object:
            return None if value is None else inner.read(value, where)

        return _Reader(f"{inner.expected} or null", nullable)
    readers = [(member, _reader(member)) for member in members]
    *others_expected, last = [reader.expected for _, reader in readers]
    expected = ", ".join(others_expected) + ", or " + last

    def read(value: object, where: Location) -> object:
        for member, _ in readers:
            if type(value) is member:  # a value of exactly one of the types stays that type
                return value
        for _, reader in readers:
            try:
                return reader.read(value, where)
            except ReadError:
                continue
        raise _wrong(expected, value, where)

    return _Reader(expected, read)


def _tuple(item: _Reader) -> _Reader:
    def read(value: object, where: Location) -> object:
        # A YAML `!!set` too, in its order (ruamel.yaml keeps the order written).
        if not isinstance(value, list | tuple | AbstractSet):
            raise _wrong("a list", value, where)
        return tuple(item.read(entry, (*where, index)) for index, entry in enumerate(value))

    return _Reader("a list", read)


def _dict(key: _Reader, item: _Reader) -> _Reader:
    def read(value: object, where: Location) -> object:
        if not isinstance(value, Mapping):
            raise _wrong("a mapping", value, where)
        read_value: dict[object, object] = {}
        for name, entry in value.items():
            inner = (*where, name if isinstance(name, str | int) else repr(name))
            read_value[key.read(name, inner)] = item.read(entry, inner)
        return read_value

    return _Reader("a mapping", read)


@dataclass(frozen=True, slots=True)
class _Field:
    name: str  # the attribute
    key: str  # as written in the file
    reader: _Reader
    required: bool


_DATACLASS_READERS: dict[type, _Reader] = {}


def _dataclass_reader(cls: type) -> _Reader:
    found = _DATACLASS_READERS.get(cls)
    if found is None:
        found = _DATACLASS_READERS[cls] = _build_dataclass_reader(cls)
    return found


def _build_dataclass_reader(cls: type) -> _Reader:
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: list[_Field] = []
    flags: list[tuple[str, str]] = []  # (attribute, the field whose presence it records)
    for field in dataclasses.fields(cls):
        if _GIVEN in field.metadata:
            flags.append((field.name, field.metadata[_GIVEN]))
            continue
        required = (
            field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        )
        fields.append(_Field(field.name, kebab(field.name), _reader(hints[field.name]), required))
    known = [field.key for field in fields]
    # `default_target` beside `default-target`: the name the kebab key already gave.
    also_spelled = {field.name: field.key for field in fields if field.name != field.key}
    check = getattr(cls, "after_read", None)

    def read(value: object, where: Location) -> object:
        if not isinstance(value, Mapping):
            raise _wrong("a mapping", value, where)
        spelled: dict[str, str] = {}  # attribute -> the key the mapping gives it under
        for field in fields:
            if field.key in value:
                spelled[field.name] = field.key
            elif field.name in value:
                spelled[field.name] = field.name
        used = set(spelled.values())
        for key in value:
            if key in used:
                continue
            if key in also_spelled:
                message = f"the same key as `{also_spelled[key]}`: give it once"
            else:
                message = _unknown_key(key, known)
            raise ReadError(message, (*where, str(key)))
        arguments: dict[str, object] = {}
        for field in fields:
            key = spelled.get(field.name)
            if key is not None:
                arguments[field.name] = field.reader.read(value[key], (*where, key))
            elif field.required:
                raise ReadError("missing: this key is required", (*where, field.key))
        for name, recorded in flags:
            arguments[name] = recorded in spelled
        instance = cls(**arguments)
        if check is not None:
            try:
                instance.after_read()
            except ReadError as error:
                raise ReadError(error.message, (*where, *error.where)) from None
        return instance

    return _Reader("a mapping", read)


def _unknown_key(key: object, known: list[str]) -> str:
    # Imported here: difflib costs more to import than a run without mistakes should pay.
    from cfglint.suggest import did_you_mean

    suggestion = did_you_mean(key, known, quote="`") if isinstance(key, str) else ""
    return f"unknown key{suggestion}"
