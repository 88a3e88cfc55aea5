"""``.json`` configs: the values MMEngine's ``json.load`` gives, each with its exact span.

``json.loads`` decides what is valid (its errors are MMEngine's); a small scanner then walks the
same text with the json module's own string and number rules to find where each value is:
``NaN``/``Infinity`` are floats, a repeated key keeps its first place and its last value, and
``"\\ud83d\\ude00"`` is one character, as with ``json.load``.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from collections.abc import Callable

from cfglint.codes import SYNTAX_ERROR
from cfglint.loader.problems import LoadError
from cfglint.loader.spans import DataSpans
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode

_WHITESPACE = " \t\n\r"
# The json module's own string reader (strict, as json.loads): absent from the type stubs.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_CONSTANTS: dict[str, object] = {
    "null": None,
    "true": True,
    "false": False,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}


def load_json(spans: DataSpans) -> ConfigNode:
    text = spans.mapped.text
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise _error(spans, error.pos, f"invalid JSON: {error.msg}") from None
    except ValueError as error:  # an int longer than Python converts
        raise _error(spans, 0, f"invalid JSON: {error}") from None
    except RecursionError:
        raise _error(spans, 0, "invalid JSON: nested too deeply to read") from None
    try:
        value, _end = _Scanner(spans).value(_skip(text, 0))
    except RecursionError:
        raise _error(spans, 0, "JSON nested too deeply for cfglint to resolve") from None
    return value


def _error(spans: DataSpans, offset: int, message: str) -> LoadError:
    return LoadError(SYNTAX_ERROR, message, spans.origin(offset, offset).span)


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


class _Scanner:
    """Walks text that ``json.loads`` accepted: no error handling needed beyond that."""

    def __init__(self, spans: DataSpans) -> None:
        self.spans = spans
        self.text = spans.mapped.text

    def value(self, start: int) -> tuple[ConfigNode, int]:
        text = self.text
        char = text[start]
        if char == "{":
            return self._object(start)
        if char == "[":
            return self._array(start)
        if char == '"':
            string, end = _scanstring(text, start + 1, True)
            return ScalarNode(string, self.spans.origin(start, end)), end
        for literal, constant in _CONSTANTS.items():
            if text.startswith(literal, start):
                end = start + len(literal)
                return ScalarNode(constant, self.spans.origin(start, end)), end
        match = json.scanner.NUMBER_RE.match(text, start)
        assert match is not None, "json.loads accepted the text"
        integer, fraction, exponent = match.groups()
        number: object = (
            float(integer + (fraction or "") + (exponent or ""))
            if fraction or exponent
            else int(integer)
        )
        return ScalarNode(number, self.spans.origin(start, match.end())), match.end()

    def _object(self, start: int) -> tuple[ConfigNode, int]:
        entries: dict[object, ConfigNode] = {}
        index = _skip(self.text, start + 1)
        while self.text[index] != "}":
            key, index = _scanstring(self.text, index + 1, True)
            index = _skip(self.text, _skip(self.text, index) + 1)  # past the `:`
            entries[key], index = self.value(index)
            index = _skip(self.text, index)
            if self.text[index] == ",":
                index = _skip(self.text, index + 1)
        end = index + 1
        return DictNode(entries, self.spans.origin(start, end)), end

    def _array(self, start: int) -> tuple[ConfigNode, int]:
        items: list[ConfigNode] = []
        index = _skip(self.text, start + 1)
        while self.text[index] != "]":
            item, index = self.value(index)
            items.append(item)
            index = _skip(self.text, index)
            if self.text[index] == ",":
                index = _skip(self.text, index + 1)
        end = index + 1
        return SequenceNode(tuple(items), False, self.spans.origin(start, end)), end
