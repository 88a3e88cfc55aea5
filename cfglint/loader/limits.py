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

_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
_DIGITS = re.compile(r"\d+")


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
        len(digits) > 7 and int(digits) > MAX_CHARS for digits in _DIGITS.findall(text)
    ):
        raise too_large()


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
