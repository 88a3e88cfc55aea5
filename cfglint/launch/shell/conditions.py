"""`test`, `[ ... ]` and `[[ ... ]]` on known strings and numbers.

The answer is True, False, or None when it depends on something not known: an operand the file
does not set, or the file system (`-f path`: cfglint does not look).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from cfglint.launch.shell.patterns import matches

_UNARY_STRING: dict[str, Callable[[str], bool]] = {
    "-z": lambda text: text == "",
    "-n": lambda text: text != "",
}
_FILE_TESTS = frozenset("-" + letter for letter in "abcdefghkprstuwxGLNOSvR")
_NUMERIC: dict[str, Callable[[int, int], bool]] = {
    "-eq": lambda a, b: a == b,
    "-ne": lambda a, b: a != b,
    "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b,
    "-gt": lambda a, b: a > b,
    "-ge": lambda a, b: a >= b,
}
_INTEGER = re.compile(r"\s*-?[0-9]+\s*")


class Operand(NamedTuple):
    text: str | None  # None: not known
    pattern: str | None = None  # `[[ x == pattern ]]`: the right side as a regex (None: unknown)


def _and(left: bool | None, right: bool | None) -> bool | None:
    if left is False or right is False:
        return False
    return None if left is None or right is None else True


def _or(left: bool | None, right: bool | None) -> bool | None:
    if left is True or right is True:
        return True
    return None if left is None or right is None else False


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


class _Test:
    def __init__(self, operands: list[Operand], *, conditional: bool) -> None:
        self._operands = operands
        self._index = 0
        self._and_word, self._or_word = ("&&", "||") if conditional else ("-a", "-o")
        self._conditional = conditional

    def _peek(self, ahead: int = 0) -> str | None:
        index = self._index + ahead
        return self._operands[index].text if index < len(self._operands) else None

    def run(self) -> bool | None:
        if not self._operands:
            return False
        value = self._or_expression()
        return value if self._index == len(self._operands) else None

    def _or_expression(self) -> bool | None:
        value = self._and_expression()
        while self._peek() == self._or_word:
            self._index += 1
            value = _or(value, self._and_expression())
        return value

    def _and_expression(self) -> bool | None:
        value = self._primary()
        while self._peek() == self._and_word:
            self._index += 1
            value = _and(value, self._primary())
        return value

    def _primary(self) -> bool | None:
        remaining = len(self._operands) - self._index
        word = self._peek()
        if word == "!" and remaining > 1:
            self._index += 1
            return _not(self._primary())
        if word == "(" and remaining > 2:
            self._index += 1
            value = self._or_expression()
            if self._peek() == ")":
                self._index += 1
            return value
        if remaining >= 3 and self._is_binary(self._peek(1)):
            return self._binary()
        if remaining >= 2 and (word in _UNARY_STRING or word in _FILE_TESTS):
            operand = self._operands[self._index + 1]
            self._index += 2
            if word in _FILE_TESTS or operand.text is None:
                return None
            return _UNARY_STRING[word](operand.text)
        operand = self._operands[self._index] if remaining else Operand("")
        self._index += 1
        return None if operand.text is None else operand.text != ""

    def _is_binary(self, word: str | None) -> bool:
        binary = ("=", "==", "!=", "<", ">", "=~", "-nt", "-ot", "-ef", *_NUMERIC)
        return word in binary

    def _binary(self) -> bool | None:
        left, operator_operand, right = self._operands[self._index : self._index + 3]
        self._index += 3
        operator = operator_operand.text
        if left.text is None or operator is None:
            return None
        if operator in _NUMERIC:
            if right.text is None or not (
                _INTEGER.fullmatch(left.text) and _INTEGER.fullmatch(right.text)
            ):
                return None
            return bool(_NUMERIC[operator](int(left.text), int(right.text)))
        if operator in ("=", "==", "!="):
            if self._conditional:
                if right.pattern is None:
                    return None
                equal = matches(right.pattern, left.text)
            elif right.text is None:
                return None
            else:
                equal = left.text == right.text
            return equal if operator != "!=" else not equal
        if operator in ("<", ">") and right.text is not None:
            return left.text < right.text if operator == "<" else left.text > right.text
        return None  # `=~` and the file comparisons


def evaluate_test(operands: list[Operand], *, conditional: bool = False) -> bool | None:
    """`[ ... ]` / `test ...` (without the `]`), or `[[ ... ]]` when `conditional`."""
    try:
        return _Test(operands, conditional=conditional).run()
    except (IndexError, ValueError):
        return None
