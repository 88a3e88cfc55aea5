"""`--cfg-options k=v ...` read as MMEngine's `DictAction` reads it (mmengine 0.10.7).

The entry script hands these words to argparse with `action=DictAction`; the values become the
dict `cfg.merge_from_dict` merges. Every rule of MMEngine's parser is kept, odd ones included:
quotes are stripped from both ends and every space is removed before anything else, a bare
`a,b` is a list, `[]` and `()` are empty containers, `true`/`false` in any case are booleans
but only `None` (that exact spelling) is None, and brackets that do not balance make MMEngine
fail with an AssertionError (here: `OptionValueError`).
"""

from __future__ import annotations

from collections.abc import Iterable


class OptionValueError(ValueError):
    """A `--cfg-options` word MMEngine's DictAction fails on (the script stops there)."""


def _scalar(text: str) -> object:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text == "None":
        return None
    return text


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count("[") == text.count("]")


def _next_comma(text: str) -> int:
    """The index of the first comma outside brackets (MMEngine compares the counts of opening
    and closing brackets before it, not their nesting), or the text's length."""
    if not _balanced(text):
        raise OptionValueError(f"AssertionError: Imbalanced brackets exist in {text}")
    open_round = close_round = open_square = close_square = 0
    for index, char in enumerate(text):
        if char == "," and open_round == close_round and open_square == close_square:
            return index
        if char == "(":
            open_round += 1
        elif char == ")":
            close_round += 1
        elif char == "[":
            open_square += 1
        elif char == "]":
            close_square += 1
    return len(text)


def parse_option_value(text: str) -> object:
    """The value of the right-hand side of one `KEY=VALUE` word."""
    return _parse(text, ())


def _parse(text: str, enclosing: tuple[str, ...]) -> object:
    text = text.strip("'\"").replace(" ", "")
    # MMEngine's parser is deterministic: meeting the same text again inside itself means it
    # recurses until Python stops it (a comma its bracket counting never accepts: `a]b,c[`).
    if text in enclosing:
        raise OptionValueError(f"RecursionError: MMEngine cannot split {text!r} at a comma")
    inside = (*enclosing, text)
    is_tuple = False
    if text.startswith("(") and text.endswith(")"):
        is_tuple = True
        text = text[1:-1]
    elif text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    elif "," not in text:
        return _scalar(text)
    values: list[object] = []
    while text:
        comma = _next_comma(text)
        values.append(_parse(text[:comma], inside))
        text = text[comma + 1 :]
    return tuple(values) if is_tuple else values


def parse_options(words: Iterable[str]) -> dict[str, object]:
    """The dict one `--cfg-options` occurrence adds (later keys win, as in a dict)."""
    options: dict[str, object] = {}
    for word in words:
        key, separator, value = word.partition("=")
        if not separator:
            raise OptionValueError(
                f"ValueError: not enough values to unpack (expected 2, got 1): {word!r} "
                "is not KEY=VALUE"
            )
        options[key] = parse_option_value(value)
    return options
