"""``repr`` for config values, which may hold ints too long for ``repr``.

Python refuses to turn an int of more than 4,300 digits into text (``sys.int_max_str_digits``,
a guard against quadratic-time conversion), and MMEngine loads ``x = 10**5000`` happily. cfglint
must still name such a value in a message, show it, and compare it: ``display_repr`` writes it
as ``<int of 5,001 digits>`` for people, ``exact_repr`` in hexadecimal (exact, and linear in
its length) for comparisons. Both are ``repr`` itself for everything else.
"""

from __future__ import annotations

import math
from collections.abc import Callable

_LOG10_2 = math.log10(2)


def display_repr(value: object) -> str:
    """``repr(value)``, with each int too long to print written ``<int of N digits>`` (with a
    ``-`` before it when negative)."""
    try:
        return repr(value)
    except ValueError:
        return _rebuilt(value, _digits_marker)


def exact_repr(value: object) -> str:
    """``repr(value)``, with each int too long to print in hexadecimal (``int:0x...``): two
    values have the same text exactly when ``repr`` would give them the same text."""
    try:
        return repr(value)
    except ValueError:
        return _rebuilt(value, lambda number: f"int:{number:#x}")


def is_printable_int(value: int) -> bool:
    """Whether ``str(value)`` works under the interpreter's digit limit."""
    try:
        str(value)
    except ValueError:
        return False
    return True


def decimal_digits(value: int) -> int:
    """How many decimal digits ``abs(value)`` has, without converting it to text."""
    magnitude = abs(value)
    if magnitude == 0:
        return 1
    digits = int((magnitude.bit_length() - 1) * _LOG10_2) + 1
    # The estimate from the bit length is off by at most one either way.
    if magnitude >= 10**digits:
        digits += 1
    elif digits > 1 and magnitude < 10 ** (digits - 1):
        digits -= 1
    return digits


def _digits_marker(number: int) -> str:
    sign = "-" if number < 0 else ""
    return f"{sign}<int of {decimal_digits(number):,} digits>"


def _rebuilt(value: object, big_int: Callable[[int], str]) -> str:
    """repr's layout for the containers a config value can be, ints written by ``big_int``."""

    def text(item: object) -> str:
        if isinstance(item, int) and not isinstance(item, bool):
            return repr(item) if is_printable_int(item) else big_int(item)
        if isinstance(item, list):
            return "[" + ", ".join(map(text, item)) + "]"
        if isinstance(item, tuple):
            inner = ", ".join(map(text, item))
            return f"({inner},)" if len(item) == 1 else f"({inner})"
        if isinstance(item, dict):
            return "{" + ", ".join(f"{text(k)}: {text(v)}" for k, v in item.items()) + "}"
        if isinstance(item, set | frozenset):
            if not item:
                return f"{type(item).__name__}()"
            inner = "{" + ", ".join(map(text, item)) + "}"
            return inner if isinstance(item, set) else f"frozenset({inner})"
        return repr(item)

    return text(value)


# A value or a piece of source quoted in a one-line message: the rest is on the rule's page.
BRIEF_LIMIT = 40


def brief(text: str, limit: int = BRIEF_LIMIT) -> str:
    """``text`` as a one-line message quotes it: its first line, cut to ``limit`` characters
    with `` ...`` when longer (or when more lines follow)."""
    lines = text.strip().splitlines() or [""]
    first = lines[0]
    if len(first) <= limit and len(lines) == 1:
        return first
    return f"{first[:limit].rstrip()} ..."


def brief_repr(value: object) -> str:
    """``display_repr(value)`` cut as ``brief`` cuts text."""
    return brief(display_repr(value))
