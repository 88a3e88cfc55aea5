"""A JSON reader that keeps where each value and key sits in the text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cfglint.fix.errors import FixNotApplicable

_WHITESPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


@dataclass
class JsonValue:
    start: int
    end: int
    value: object  # the plain Python value
    members: list[JsonMember] = field(default_factory=list)  # when it is an object
    is_object: bool = False


@dataclass
class JsonMember:
    key: str
    key_start: int
    value: JsonValue
    comma_end: int | None = None


def parse_json(text: str) -> JsonValue:
    reader = _Reader(text)
    root = reader.value(reader.skip(0))
    if reader.skip(root.end) != len(text):
        raise FixNotApplicable("the file does not parse: extra data after the JSON value")
    return root


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, index: int) -> int:
        while index < len(self.text) and self.text[index] in _WHITESPACE:
            index += 1
        return index

    def fail(self, index: int, what: str) -> FixNotApplicable:
        return FixNotApplicable(f"the file does not parse: {what} at offset {index}")

    def expect(self, index: int, char: str) -> int:
        if not self.text.startswith(char, index):
            raise self.fail(index, f"expected `{char}`")
        return index + 1

    def value(self, index: int) -> JsonValue:
        if self.text.startswith("{", index):
            return self.object(index)
        try:
            value, end = _DECODER.raw_decode(self.text, index)
        except json.JSONDecodeError as error:
            raise self.fail(index, error.msg) from None
        return JsonValue(index, end, value)

    def object(self, start: int) -> JsonValue:
        members: list[JsonMember] = []
        index = self.skip(start + 1)
        while not self.text.startswith("}", index):
            key_value = self.value(index)
            if not isinstance(key_value.value, str) or key_value.members:
                raise self.fail(index, "expected a string key")
            index = self.skip(self.expect(self.skip(key_value.end), ":"))
            member = JsonMember(key_value.value, key_value.start, self.value(index))
            members.append(member)
            index = self.skip(member.value.end)
            if self.text.startswith(",", index):
                member.comma_end = index + 1
                index = self.skip(index + 1)
            elif not self.text.startswith("}", index):
                raise self.fail(index, "expected `,` or `}`")
        plain = {member.key: member.value.value for member in members}
        return JsonValue(start, index + 1, plain, members, is_object=True)
