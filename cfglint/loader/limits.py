"""Bounds on the work of the static evaluator, so that no config can make cfglint hang.

A config is data; a value above these sizes is not something a training run reads, so cfglint
refuses to compute it (the value becomes unknown, "too large to evaluate statically") rather
than spend minutes or gigabytes on it. Checks run *before* an operation wherever its result
could be huge from small inputs (``'x' * 10**9``, ``math.factorial(10**6)``, ``'{:>9999999999}'``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cfglint.loader.values import UnknowableError

TOO_LARGE = "too large to evaluate statically"
TOO_MANY_STEPS = "too many loop iterations to evaluate statically"
MAX_ELEMENTS = 1_000_000  # items in one computed value (nested items included)
MAX_CHARS = 10_000_000  # characters (or bytes) of one computed string
MAX_INT_BITS = 1_000_000  # an int of about 300,000 digits
MAX_STEPS = 300_000  # loop iterations and comprehension items of one file, together
MAX_LOOP_STEPS = 100_000  # iterations of the file's `for`/`while` loops, together
MAX_FROZEN_CONTAINERS = 200_000  # dicts and lists in one resolved value, shared ones counted apart
WORK_BUDGET = 100_000_000  # size of everything one file computes, added up

# Methods whose result is as long as their width argument (or their text, when longer).
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
# Methods whose result may be a few times longer than their text (`'ß'.upper()` is 'SS';
# `encode` with an error handler writes `\U0001f600` for one character).
_GROWTH = {
    "upper": 3,
    "lower": 3,
    "title": 3,
    "capitalize": 3,
    "swapcase": 3,
    "casefold": 3,
    "encode": 10,
    "decode": 4,
    "hex": 3,
}
_SPLITS = frozenset({"split", "rsplit", "splitlines"})
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"\S+")
_BYTE_WORDS = re.compile(rb"\S+")
# One `%` conversion: mapping key, flags, width, precision, length modifier, type.
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.DOTALL)


def too_large() -> UnknowableError:
    # Imported here: values.py reads this module's limits when it freezes values.
    from cfglint.loader.values import UnknowableError

    return UnknowableError(TOO_LARGE)


def _bits(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value.bit_length()


def check_binary(op: str, left: object, right: object) -> None:
    """Refuse an arithmetic or repetition whose result would be too large to build."""
    if op == "Pow" and isinstance(right, int) and _bits(left) > 1:
        if _bits(left) * abs(right) > MAX_INT_BITS:
            raise too_large()
    elif op == "LShift" and isinstance(right, int) and _bits(left):
        if _bits(left) + right > MAX_INT_BITS:
            raise too_large()
    elif op == "Mult":
        for sequence, count in ((left, right), (right, left)):
            if not isinstance(sequence, str | bytes | list | tuple) or not isinstance(count, int):
                continue
            limit = MAX_CHARS if isinstance(sequence, str | bytes) else MAX_ELEMENTS
            if len(sequence) * count > limit:
                raise too_large()
        if _bits(left) + _bits(right) > MAX_INT_BITS:
            raise too_large()
    elif op == "Mod" and isinstance(left, str | bytes):
        check_format_text(left)
        _check_percent(left, right)
    elif (
        op == "Add"
        and isinstance(left, str | bytes | list | tuple)
        and isinstance(right, str | bytes | list | tuple)
    ):
        limit = MAX_CHARS if isinstance(left, str | bytes) else MAX_ELEMENTS
        if len(left) + len(right) > limit:
            raise too_large()


def check_length(*parts: int) -> None:
    """Refuse to build a list from parts this long (``x = x + x`` in a loop doubles it)."""
    if sum(parts) > MAX_ELEMENTS:
        raise too_large()


def check_format_text(text: object) -> None:
    """A format string or spec asking for a field wider than any config string."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    if isinstance(text, str) and any(
        _number(digits) > MAX_CHARS for digits in _DIGITS.findall(text)
    ):
        raise too_large()


def _number(digits: str) -> int:
    """A run of digits as a width, without converting thousands of them (int() refuses)."""
    return int(digits) if len(digits) <= 8 else MAX_CHARS + 1


def spec_width(spec: str) -> int:
    """What a format spec can add to a field (its width and precision, and more)."""
    return sum(_number(digits) for digits in _DIGITS.findall(spec))


def formatted_length(value: object, spec: str) -> int:
    """An upper bound on ``len(format(value, spec))`` (also of ``str``, ``repr`` or ``ascii``
    of the value), checked before a field of an f-string is built."""
    return text_length(value) + spec_width(spec)


def text_length(value: object, limit: int = MAX_CHARS) -> int:
    """An upper bound on the length of ``str(value)``, ``repr(value)`` and ``ascii(value)``,
    or ``limit + 1`` as soon as it passes ``limit``; never builds the text."""
    total = 0
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            # An escape is at most 4 characters for ASCII text (`\x00`), 10 for the rest.
            total += (4 if current.isascii() else 10) * len(current) + 2
        elif isinstance(current, bytes | bytearray):
            total += 4 * len(current) + 14
        elif isinstance(current, bool) or current is None:
            total += 5
        elif isinstance(current, int):
            total += current.bit_length() * 3 // 10 + 2  # decimal digits, and a sign
        elif isinstance(current, float | complex):
            total += 64
        elif isinstance(current, list | tuple | set | frozenset):
            total += 2 * len(current) + 12
            pending.extend(current)
        elif isinstance(current, dict):
            total += 4 * len(current) + 2
            pending.extend(current.keys())
            pending.extend(current.values())
        else:
            total += 256  # a range, a type, a slice: short
        if total > limit:
            return limit + 1
    return total


def check_call(name: str, args: Iterable[object]) -> None:
    """Refuse a pure call whose inputs or result would be too large (``name`` as in the table)."""
    values = list(args)
    method = name.rpartition(".")[2]
    for value in values:
        if isinstance(value, range) and range_length(value) > MAX_ELEMENTS:
            raise too_large()
        if method in ("format", "format_map"):
            check_format_text(value)
    if method in _WIDTH_METHODS and any(
        isinstance(value, int) and value > MAX_CHARS for value in values
    ):
        raise too_large()
    if method == "replace" and len(values) >= 3:
        _check_replace(*values[:3])
    if method == "join" and values and isinstance(values[0], str | bytes):
        parts = values[1] if len(values) > 1 else ()
        if isinstance(parts, list | tuple):
            total = sum(len(part) for part in parts if isinstance(part, str | bytes))
            if total + len(values[0]) * len(parts) > MAX_CHARS:
                raise too_large()
    if name in ("math.factorial", "math.perm", "math.comb", "pow"):
        _check_growth(name, values)
    if values:
        _check_text_result(name, method, values)


def _check_text_result(name: str, method: str, values: list[object]) -> None:
    """Refuse to build text longer than a computed string may be, bounded from the inputs."""
    receiver = values[0]
    if name in ("str", "repr", "ascii", "format"):
        spec = values[1] if name == "format" and len(values) > 1 else ""
        if formatted_length(receiver, spec if isinstance(spec, str) else "") > MAX_CHARS:
            raise too_large()
    if not name.startswith("str.") or not isinstance(receiver, str | bytes | bytearray):
        return
    if method == "expandtabs":
        _check_expandtabs(receiver, values[1] if len(values) > 1 else 8)
    if method in ("format", "format_map"):
        _check_template(receiver, values[1:])
    if method in _SPLITS:
        _check_pieces(method, receiver, values[1:])
    if method in _GROWTH and len(receiver) * _GROWTH[method] > MAX_CHARS:
        raise too_large()


def _check_expandtabs(text: str | bytes | bytearray, tabsize: object) -> None:
    """Each tab becomes up to ``tabsize`` spaces: 350 tabs at 10**7 are 3.5 billion."""
    if not isinstance(tabsize, int) or tabsize <= 1:
        return
    tab = "\t" if isinstance(text, str) else b"\t"
    if len(text) + text.count(tab) * tabsize > MAX_CHARS:  # type: ignore[arg-type]
        raise too_large()


def _check_template(template: str | bytes | bytearray, arguments: list[object]) -> None:
    """``template.format(*arguments)``: each field is at most its spec's numbers plus the
    longest argument (a field may name any argument, and name it again: `{0}{0}{0}`)."""
    if not isinstance(template, str):
        return
    import string  # here: a config rarely calls `.format`, and `string` compiles a pattern

    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return  # the call fails, as in MMEngine
    longest = max((text_length(argument) for argument in arguments), default=0)
    # A nested field (`{:{}}`) takes its width from an argument.
    widest = max((_as_width(argument) for argument in _flatten(arguments)), default=0)
    total = 0
    for literal, field, spec, _conversion in fields:
        total += len(literal)
        if field is not None:
            extra = spec.count("{") * widest if spec and "{" in spec else spec_width(spec or "")
            total += longest + extra
        if total > MAX_CHARS:
            raise too_large()


def _check_percent(template: str | bytes, values: object) -> None:
    """``template % values``: each conversion is at most its width and precision (``*``
    takes them from the values) plus the longest value."""
    text = template.decode("latin-1") if isinstance(template, bytes) else template
    if "%" not in text:
        return
    items = list(values.values()) if isinstance(values, dict) else None
    if items is None:
        items = list(values) if isinstance(values, tuple) else [values]
    longest = max((text_length(item) for item in items), default=0)
    widest = max((_as_width(item) for item in items), default=0)
    total = len(text)
    for match in _PERCENT.finditer(text):
        if match.group(3) == "%":
            continue
        for number in match.group(1, 2):
            if number is not None:
                total += widest if number == "*" else _number(number)
        total += longest
        if total > MAX_CHARS:
            raise too_large()


def _as_width(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return min(abs(value), MAX_CHARS + 1)
    if isinstance(value, str) and value.strip().isdigit():
        return _number(value.strip())
    return 0


def _flatten(values: list[object]) -> list[object]:
    """The arguments and what a field can reach inside them (`{0[1]}`, `{a}` of a mapping)."""
    found: list[object] = []
    for value in values:
        found.append(value)
        if isinstance(value, dict):
            found.extend(value.values())
        elif isinstance(value, list | tuple):
            found.extend(value)
    return found


def _check_pieces(method: str, text: str | bytes | bytearray, arguments: list[object]) -> None:
    """A split into more pieces than a computed value may hold is refused before the pieces
    (3 million strings of a 10-million-character text) are built."""
    if method == "splitlines":
        if isinstance(text, str):
            breaks = sum(text.count(char) for char in _LINE_BREAKS)
        else:
            breaks = text.count(b"\n") + text.count(b"\r")
        pieces = breaks + 1
    else:
        separator = arguments[0] if arguments else None
        if isinstance(separator, str | bytes) and separator:
            pieces = text.count(separator) + 1  # type: ignore[arg-type]
        else:  # words between runs of whitespace, counted without building them
            found = _WORDS.finditer(text) if isinstance(text, str) else _BYTE_WORDS.finditer(text)
            pieces = sum(1 for _word in found) + 1
        limit = arguments[1] if len(arguments) > 1 else -1
        if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
            pieces = min(pieces, limit + 1)
    if pieces > MAX_ELEMENTS:
        raise too_large()


def _check_replace(text: object, old: object, new: object) -> None:
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        return
    found = text.count(old) if old else len(text) + 1
    if len(text) + found * (len(new) - len(old)) > MAX_CHARS:
        raise too_large()


def _check_growth(name: str, values: list[object]) -> None:
    ints = [value for value in values if isinstance(value, int)]
    if name == "math.factorial" and ints:
        n = ints[0]
        if n > 2 and n * math.log2(n) > MAX_INT_BITS:
            raise too_large()
    elif name in ("math.perm", "math.comb") and ints:
        n = ints[0]
        if n > MAX_INT_BITS or (name == "math.perm" and n > 2 and n * math.log2(n) > MAX_INT_BITS):
            raise too_large()
    elif name == "pow" and len(values) == 2:
        check_binary("Pow", values[0], values[1])


def range_length(value: range) -> int:
    try:
        return len(value)
    except OverflowError:  # longer than sys.maxsize
        return MAX_ELEMENTS + 1


def size_of(value: object, limit: int = MAX_ELEMENTS) -> int:
    """The size of a computed value (items counted as often as they appear, string lengths
    added in), or ``limit + 1`` as soon as it passes ``limit``."""
    total = 0
    pending = [value]
    while pending:
        current = pending.pop()
        total += 1
        if isinstance(current, str | bytes):
            if len(current) > MAX_CHARS:
                return limit + 1
            total += len(current) // 64
        elif isinstance(current, int) and not isinstance(current, bool):
            if current.bit_length() > MAX_INT_BITS:
                return limit + 1
        elif isinstance(current, list | tuple | set | frozenset):
            if len(current) + total > limit:
                return limit + 1
            pending.extend(current)
        elif isinstance(current, dict):
            if len(current) + total > limit:
                return limit + 1
            pending.extend(current.values())
            pending.extend(current.keys())
        if total > limit:
            return limit + 1
    return total
