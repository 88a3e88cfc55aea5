"""The reader of settings and target files: a mapping into a frozen dataclass by its type hints,
accepting what Pydantic's lax mode accepted before it, with the location of every mistake."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest
from ruamel.yaml import YAML

from cfglint.strict_model import Pattern, ReadError, given, read


@dataclass(frozen=True, slots=True, kw_only=True)
class Inner:
    code: Annotated[str, Pattern(r"CL[0-9]{3}")]
    value: str | int | float | bool | None = None
    writes_value: bool = given("value")

    def after_read(self) -> None:
        if self.value == "bad":
            raise ReadError("`bad` is not a value here", ("value",))


@dataclass(frozen=True, slots=True, kw_only=True)
class Outer:
    name: str
    flag: bool = False
    ratio: float = 1.0
    count: int = 0
    mode: Literal["auto", "leaf"] = "auto"
    words: tuple[str, ...] = ()
    inner: Inner | None = None
    table: dict[str, Inner] = dataclasses.field(default_factory=dict)
    raw: dict[str, Any] = dataclasses.field(default_factory=dict)


def test_kebab_keys_defaults_and_nested_classes() -> None:
    outer = read(
        Outer,
        {
            "name": "n",
            "words": ["a", "b"],
            "inner": {"code": "CL101", "value": None},
            "table": {"k": {"code": "CL102"}},
            "raw": {"x": [1]},
        },
    )
    assert outer == Outer(
        name="n",
        words=("a", "b"),
        inner=Inner(code="CL101", value=None, writes_value=True),
        table={"k": Inner(code="CL102")},
        raw={"x": [1]},
    )
    assert outer.table["k"].writes_value is False


@pytest.mark.parametrize(
    ("data", "field", "expected"),
    [
        # A bool from 0/1 and the words YAML 1.1 and TOML users write, in any case.
        ({"flag": "Yes"}, "flag", True),
        ({"flag": "off"}, "flag", False),
        ({"flag": 1}, "flag", True),
        ({"flag": 0.0}, "flag", False),
        ({"ratio": 2}, "ratio", 2.0),
        ({"mode": "leaf"}, "mode", "leaf"),
        ({"words": ("a",)}, "words", ("a",)),
        # A union keeps a value of exactly one of its types as that type.
        ({"inner": {"code": "CL101", "value": True}}, "inner", Inner(code="CL101", value=True)),
        ({"inner": {"code": "CL101", "value": 1}}, "inner", Inner(code="CL101", value=1)),
    ],
)
def test_what_is_accepted(data: dict[str, object], field: str, expected: object) -> None:
    value = getattr(read(Outer, {"name": "n", **data}), field)
    if isinstance(expected, Inner):
        assert (value.code, value.value, type(value.value)) == (
            expected.code,
            expected.value,
            type(expected.value),
        )
    else:
        assert (value, type(value)) == (expected, type(expected))


def test_a_parsers_own_types_are_read_as_the_plain_ones() -> None:
    data = YAML(typ="rt").load("name: |\n  block\nratio: 0.5\ninner: {code: CL101, value: 1.5}\n")
    outer = read(Outer, data)
    assert type(outer.name) is str and type(outer.ratio) is float
    assert outer.inner is not None and type(outer.inner.value) is float


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "name: missing: this key is required"),
        ({"name": 3}, "name: must be a string, not 3"),
        ({"name": "n", "nmae": "n"}, "nmae: unknown key: did you mean `name`?"),
        ({"name": "n", "flag": 2}, "flag: must be true or false, not 2"),
        ({"name": "n", "flag": "maybe"}, "flag: must be true or false, not 'maybe'"),
        ({"name": "n", "count": True}, "count: must be an integer, not true"),
        ({"name": "n", "ratio": "1.5"}, "ratio: must be a number, not '1.5'"),
        ({"name": "n", "mode": "AUTO"}, "mode: must be one of 'auto', 'leaf', not 'AUTO'"),
        ({"name": "n", "words": "ab"}, "words: must be a list, not 'ab'"),
        ({"name": "n", "words": ["a", None]}, "words.1: must be a string, not null"),
        ({"name": "n", "inner": []}, "inner: must be a mapping, not a list"),
        ({"name": "n", "inner": {"code": "CL1"}}, "inner.code: must match `CL[0-9]{3}`, not 'CL1'"),
        (
            {"name": "n", "table": {"k": {"code": "CL101", "value": []}}},
            "table.k.value: must be a string, an integer, a number, true or false, or null, "
            "not a list",
        ),
        (
            {"name": "n", "table": {"k": {"code": "CL101", "value": "bad"}}},
            "table.k.value: `bad` is not a value here",
        ),
        ({"name": "n", "table": {1: {"code": "CL101"}}}, "table.1: must be a string, not 1"),
        ({"name": "n", "writes-value": True}, "writes-value: unknown key"),
    ],
)
def test_a_mistake_says_where_and_what(data: dict[object, object], message: str) -> None:
    with pytest.raises(ReadError) as caught:
        read(Outer, data)
    assert str(caught.value) == message


def test_a_field_of_a_type_it_cannot_read_is_a_programming_error() -> None:
    @dataclass(frozen=True)
    class Odd:
        values: list[int]

    with pytest.raises(TypeError, match="cannot read a field of type"):
        read(Odd, {"values": [1]})
