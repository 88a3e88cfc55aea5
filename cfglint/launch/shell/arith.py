"""Bash arithmetic (`$((...))`, `((...))`, `let`, C-style `for`) on 64-bit integers.

A variable whose value is not known makes the result unknown (None); nothing is guessed. The
expression has already been through parameter expansion, as bash does.
"""

from __future__ import annotations

import operator as ops
import re
from collections.abc import Callable
from typing import Protocol

_TOKEN = re.compile(
    r"\s*(?:(?P<number>0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><<=|>>=|\*\*|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|[-+*/%<>=!~&^|?:,()]))"
)
_BINARY_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_ASSIGNMENTS = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=")
_MAX_DEPTH = 24


class ArithmeticVariables(Protocol):
    def get_number(self, name: str) -> int | None:
        """The variable's value as a number; None when it is not known."""

    def set_number(self, name: str, value: int | None) -> None:
        """Assign a number; None: a value not known."""


class _Failed(Exception):
    """The expression is not valid arithmetic, or divides by zero: bash would fail."""


def _wrap(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _number(text: str) -> int:
    if "#" in text:
        base_text, digits = text.split("#", 1)
        base = int(base_text)
        if not 2 <= base <= 36:
            raise _Failed(text)
        return int(digits, base)
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8)
    return int(text)


class _Evaluator:
    def __init__(self, text: str, variables: ArithmeticVariables) -> None:
        self._tokens = self._lex(text)
        self._index = 0
        self._variables = variables
        self._skip = 0  # inside the branch a `?:`, `&&` or `||` does not take: no assignments
        self._depth = 0

    @staticmethod
    def _lex(text: str) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise _Failed(text)
            kind = match.lastgroup or "op"
            tokens.append((kind, match.group(kind)))
            position = match.end()
        return tokens

    def _peek(self) -> str:
        return self._tokens[self._index][1] if self._index < len(self._tokens) else ""

    def _take(self) -> tuple[str, str]:
        if self._index >= len(self._tokens):
            raise _Failed("unexpected end")
        token = self._tokens[self._index]
        self._index += 1
        return token

    def evaluate(self) -> int | None:
        if not self._tokens:
            return 0
        value = self._comma()
        if self._index != len(self._tokens):
            raise _Failed("trailing tokens")
        return value

    def _comma(self) -> int | None:
        value = self._assignment()
        while self._peek() == ",":
            self._take()
            value = self._assignment()
        return value

    def _assignment(self) -> int | None:
        if (
            self._index + 1 < len(self._tokens)
            and self._tokens[self._index][0] == "name"
            and self._tokens[self._index + 1][1] in _ASSIGNMENTS
        ):
            name = self._take()[1]
            operator = self._take()[1]
            right = self._assignment()
            if operator != "=":
                left = self._variables.get_number(name)
                right = self._binary(operator[:-1], left, right)
            self._store(name, right)
            return right
        return self._ternary()

    def _store(self, name: str, value: int | None) -> None:
        if not self._skip:
            self._variables.set_number(name, value)

    def _ternary(self) -> int | None:
        condition = self._level(0)
        if self._peek() != "?":
            return condition
        self._take()
        self._skip += condition is None or condition == 0
        when_true = self._assignment()
        self._skip -= condition is None or condition == 0
        if self._take()[1] != ":":
            raise _Failed("`:` expected")
        self._skip += condition is None or condition != 0
        when_false = self._assignment()
        self._skip -= condition is None or condition != 0
        if condition is None:
            return None
        return when_true if condition else when_false

    def _level(self, level: int) -> int | None:
        if level == len(_BINARY_LEVELS):
            return self._power()
        left = self._level(level + 1)
        while self._peek() in _BINARY_LEVELS[level]:
            operator = self._take()[1]
            short = (operator == "&&" and left == 0) or (operator == "||" and left not in (0, None))
            self._skip += short
            right = self._level(level + 1)
            self._skip -= short
            left = int(operator == "||") if short else self._binary(operator, left, right)
        return left

    def _power(self) -> int | None:
        base = self._unary()
        if self._peek() != "**":
            return base
        self._take()
        exponent = self._power()
        return self._binary("**", base, exponent)

    def _unary(self) -> int | None:
        operator = self._peek()
        if operator in ("!", "~", "-", "+"):
            self._take()
            self._depth += 1
            if self._depth > _MAX_DEPTH:
                raise _Failed("nested too deeply")
            value = self._unary()
            self._depth -= 1
            if value is None:
                return None
            return {"!": int(value == 0), "~": ~value, "-": _wrap(-value), "+": value}[operator]
        if operator in ("++", "--"):
            self._take()
            kind, name = self._take()
            if kind != "name":
                raise _Failed("a variable expected")
            value = self._variables.get_number(name)
            value = None if value is None else _wrap(value + (1 if operator == "++" else -1))
            self._store(name, value)
            return value
        return self._postfix()

    def _postfix(self) -> int | None:
        kind, text = self._take()
        if kind == "number":
            try:
                return _wrap(_number(text))
            except ValueError:
                raise _Failed(text) from None
        if kind == "name":
            value = self._variables.get_number(text)
            if self._peek() in ("++", "--"):
                step = 1 if self._take()[1] == "++" else -1
                self._store(text, None if value is None else _wrap(value + step))
            return value
        if text == "(":
            self._depth += 1
            if self._depth > _MAX_DEPTH:
                raise _Failed("nested too deeply")
            value = self._comma()
            self._depth -= 1
            if self._take()[1] != ")":
                raise _Failed("`)` expected")
            return value
        raise _Failed(f"unexpected `{text}`")

    def _binary(self, operator: str, left: int | None, right: int | None) -> int | None:
        if left is None or right is None:
            return None
        if operator in ("/", "%") and right == 0:
            if self._skip:
                return 0
            raise _Failed("division by zero")
        if operator == "**":
            if right < 0:
                raise _Failed("negative exponent")
            return _wrap(pow(left, right, 1 << 64))
        return _wrap(_compute(operator, left, right))


def _compute(operator: str, left: int, right: int) -> int:
    if operator in ("/", "%"):
        # C division: the quotient rounds towards zero.
        quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
        return quotient if operator == "/" else left - right * quotient
    if operator in ("<<", ">>"):
        return left << (right & 63) if operator == "<<" else left >> (right & 63)
    if operator in _COMPARISONS:
        return int(_COMPARISONS[operator](left, right))
    if operator in _ARITHMETIC:
        return _ARITHMETIC[operator](left, right)
    raise _Failed(operator)


_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "<": ops.lt,
    ">": ops.gt,
    "<=": ops.le,
    ">=": ops.ge,
    "==": ops.eq,
    "!=": ops.ne,
    "&&": lambda left, right: bool(left) and bool(right),
    "||": lambda left, right: bool(left) or bool(right),
}
_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": ops.add,
    "-": ops.sub,
    "*": ops.mul,
    "&": ops.and_,
    "^": ops.xor,
    "|": ops.or_,
}


def evaluate(expression: str, variables: ArithmeticVariables) -> int | None:
    """The value of an arithmetic expression; None when it depends on a value not known, or
    when bash would fail on it (a syntax error, a division by zero)."""
    try:
        return _Evaluator(expression, variables).evaluate()
    except (_Failed, ValueError, IndexError):
        return None
