"""Scanning one shell word into its parts: quotes, escapes, `$x`, `${x:-w}`, `$(...)`, `$((...))`.

The scanner follows bash's quoting rules. It never runs anything: a command substitution is kept
as its text, and its end is found by scanning its commands (`WordScanner.skip_commands`, which
the lexer provides), so that a `)` inside quotes or a nested `$(...)` does not end it.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from cfglint.launch.shell.tree import (
    ArithmeticSubstitution,
    CommandSubstitution,
    DoubleQuoted,
    Literal,
    Parameter,
    ProcessSubstitution,
    Quoted,
    Word,
    WordPart,
)
from cfglint.types import Span

METACHARACTERS = frozenset(" \t\n;&|()<>")
MAX_NESTING = 40  # quotes, `${`, `$(` and compound commands inside each other
_PLAIN = re.compile(r"[^ \t\n;&|()<>\\'\"$`]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMETERS = "@*#?-$!0"
# Longest first, so that `:-` is not read as `:` followed by `-`.
_PARAMETER_OPERATORS = (
    ":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%",
    "//", "/#", "/%", "/", "^^", "^", ",,", ",", "@", ":",
)  # fmt: skip
_HEX = "0123456789abcdefABCDEF"
_ANSI_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


class LexError(Exception):
    """Text bash would refuse (an unterminated quote), at the offset where the construct starts."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class WordScanner:
    """A position in a text, and the scanning of the words and parts found there."""

    def __init__(self, text: str, path: Path, first_line: int = 1) -> None:
        self.text = text
        self.path = path
        self.pos = 0
        self.depth = 0
        self._first_line = first_line
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    # -- positions

    def line_column(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + self._first_line, offset - self._line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.line_column(start)
        end_line, end_column = self.line_column(end)
        return Span(self.path, line, column, end_line, end_column)

    def _enter(self, offset: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise LexError(f"nested more than {MAX_NESTING} levels deep", offset)

    def skip_commands(self, start: int) -> int:
        """Scan the commands of a `$(...)` from `start`; return the offset of its `)`."""
        raise NotImplementedError

    # -- words

    def word(self) -> Word:
        """The word at the current position (which is not a metacharacter)."""
        start = self.pos
        parts: list[WordPart] = []
        text = self.text
        if text.startswith(("<(", ">("), start):
            parts.append(self._process_substitution())
        literal: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char in METACHARACTERS:
                break
            plain = _PLAIN.match(text, self.pos)
            if plain:
                literal.append(plain.group())
                self.pos = plain.end()
                continue
            if char == "\\":
                if text.startswith("\\\n", self.pos):
                    self.pos += 2
                    continue
                if self.pos + 1 >= len(text):
                    literal.append("\\")
                    self.pos += 1
                    continue
                _flush(literal, parts)
                parts.append(Quoted(text[self.pos + 1]))
                self.pos += 2
                continue
            _flush(literal, parts)
            if char == "'":
                parts.append(Quoted(self._single_quoted()))
            elif char == '"':
                parts.append(self._double_quoted())
            elif char == "`":
                parts.append(self._backquoted())
            else:
                part = self._dollar(in_double_quotes=False)
                if isinstance(part, Literal):
                    literal.append(part.text)
                else:
                    parts.append(part)
        _flush(literal, parts)
        return Word(tuple(parts), text[start : self.pos], self.span(start, self.pos))

    def scan_until(self, stops: str, *, in_double_quotes: bool = False) -> Word:
        """The word up to (not including) the first unquoted stop character at brace level 0,
        or the end of the text. Blanks are part of it (`${x:-a b}`, an arithmetic expression)."""
        start = self.pos
        parts: list[WordPart] = []
        literal: list[str] = []
        braces = 0
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in stops and braces == 0:
                break
            if char == "\\":
                if text.startswith("\\\n", self.pos):
                    self.pos += 2
                    continue
                _flush(literal, parts)
                escaped = text[self.pos + 1 : self.pos + 2]
                if in_double_quotes and escaped not in ('"', "\\", "$", "`", "}"):
                    parts.append(Quoted("\\"))
                    self.pos += 1
                else:
                    parts.append(Quoted(escaped))
                    self.pos += 2
                continue
            if char == "'" and not in_double_quotes:
                _flush(literal, parts)
                parts.append(Quoted(self._single_quoted()))
            elif char == '"':
                _flush(literal, parts)
                parts.append(self._double_quoted())
            elif char == "`":
                _flush(literal, parts)
                parts.append(self._backquoted())
            elif char == "$":
                part = self._dollar(in_double_quotes=in_double_quotes)
                if isinstance(part, Literal):
                    literal.append(part.text)
                else:
                    _flush(literal, parts)
                    parts.append(part)
            else:
                braces += {"{": 1, "}": -1}.get(char, 0)
                literal.append(char)
                self.pos += 1
        _flush(literal, parts)
        if in_double_quotes:
            parts = [Quoted(part.text) if isinstance(part, Literal) else part for part in parts]
        return Word(tuple(parts), text[start : self.pos], self.span(start, self.pos))

    # -- quotes

    def _single_quoted(self) -> str:
        start = self.pos
        end = self.text.find("'", start + 1)
        if end < 0:
            raise LexError("unterminated single quote", start)
        self.pos = end + 1
        return self.text[start + 1 : end]

    def _double_quoted(self) -> DoubleQuoted:
        start = self.pos
        self._enter(start)
        self.pos += 1
        parts: list[WordPart] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise LexError("unterminated double quote", start)
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                break
            if char == "\\":
                escaped = text[self.pos + 1 : self.pos + 2]
                if escaped == "\n":
                    self.pos += 2
                elif escaped in ('"', "\\", "$", "`"):
                    parts.append(Quoted(escaped))
                    self.pos += 2
                else:
                    parts.append(Quoted("\\"))
                    self.pos += 1
            elif char == "$":
                part = self._dollar(in_double_quotes=True)
                parts.append(Quoted(part.text) if isinstance(part, Literal) else part)
            elif char == "`":
                parts.append(self._backquoted())
            else:
                end = self.pos
                while end < len(text) and text[end] not in '"\\$`':
                    end += 1
                parts.append(Quoted(text[self.pos : end]))
                self.pos = end
        self.depth -= 1
        return DoubleQuoted(tuple(parts))

    def _ansi_c_quoted(self) -> Quoted:
        """`$'...'`, with its backslash escapes decoded."""
        start = self.pos
        self.pos += 2
        out: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise LexError("unterminated $'...' quote", start)
            char = text[self.pos]
            if char == "'":
                self.pos += 1
                return Quoted("".join(out))
            if char != "\\":
                out.append(char)
                self.pos += 1
                continue
            escaped = text[self.pos + 1 : self.pos + 2]
            self.pos += 2
            if escaped in _ANSI_ESCAPES:
                out.append(_ANSI_ESCAPES[escaped])
            elif escaped in ("x", "u", "U") or escaped.isdigit():
                out.append(self._numeric_escape(escaped))
            else:
                out.append("\\" + escaped)

    def _numeric_escape(self, kind: str) -> str:
        """`\\xHH`, `\\uHHHH`, `\\UHHHHHHHH` or octal `\\NNN` (its first digit already read)."""
        if kind.isdigit():
            start, width, digits, base = self.pos - 1, 3, "01234567", 8
        else:
            start, width, digits, base = self.pos, {"x": 2, "u": 4, "U": 8}[kind], _HEX, 16
        end = start
        while end < len(self.text) and end - start < width and self.text[end] in digits:
            end += 1
        if end == start:
            return "\\" + kind
        self.pos = end
        code = int(self.text[start:end], base)
        # A lone surrogate could not be written out as UTF-8 later.
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"

    def _backquoted(self) -> CommandSubstitution:
        start = self.pos
        out: list[str] = []
        index = start + 1
        text = self.text
        while True:
            if index >= len(text):
                raise LexError("unterminated backquote", start)
            char = text[index]
            if char == "`":
                break
            if char == "\\" and text[index + 1 : index + 2] in ("`", "\\", "$"):
                out.append(text[index + 1])
                index += 2
                continue
            out.append(char)
            index += 1
        self.pos = index + 1
        line, _ = self.line_column(start)
        return CommandSubstitution("".join(out), text[start : self.pos], line)

    # -- `$` forms

    def _dollar(self, *, in_double_quotes: bool) -> WordPart:
        start = self.pos
        text = self.text
        following = text[start + 1 : start + 2]
        if text.startswith("$((", start):
            end = arithmetic_end(text, start + 1)
            if end is not None:
                return self._arithmetic(start, start + 3, end - 2, end)
        if following == "(":
            return self._command_substitution(start)
        if following == "{":
            return self._braced_parameter(in_double_quotes)
        if following == "'" and not in_double_quotes:
            return self._ansi_c_quoted()
        if following == '"' and not in_double_quotes:
            self.pos += 1
            return self._double_quoted()
        if following == "[":
            end = text.find("]", start + 2)
            if end >= 0:
                return self._arithmetic(start, start + 2, end, end + 1)
        name = _NAME.match(text, start + 1)
        if name:
            self.pos = name.end()
            return Parameter(name.group(), text[start : self.pos])
        if following and (following.isdigit() or following in _SPECIAL_PARAMETERS):
            self.pos = start + 2
            return Parameter(following, text[start : self.pos])
        self.pos += 1
        return Literal("$")

    def _arithmetic(self, start: int, inner: int, inner_end: int, end: int) -> WordPart:
        self._enter(start)
        line, _ = self.line_column(inner)
        expression = sub_scanner(self, text=self.text[inner:inner_end], first_line=line)
        word = expression.scan_until("")
        self.pos = end
        self.depth -= 1
        return ArithmeticSubstitution(word, self.text[start:end])

    def _command_substitution(self, start: int) -> CommandSubstitution:
        self._enter(start)
        close = self.skip_commands(start + 2)
        self.pos = close + 1
        self.depth -= 1
        line, _ = self.line_column(start + 2)
        return CommandSubstitution(self.text[start + 2 : close], self.text[start : self.pos], line)

    def _process_substitution(self) -> ProcessSubstitution:
        start = self.pos
        self._enter(start)
        close = self.skip_commands(start + 2)
        self.pos = close + 1
        self.depth -= 1
        return ProcessSubstitution(self.text[start : self.pos])

    def _braced_parameter(self, in_double_quotes: bool) -> Parameter:
        start = self.pos
        self._enter(start)
        self.pos += 2
        text = self.text
        operator = ""
        if text.startswith("#", self.pos) and text[self.pos + 1 : self.pos + 2] not in ("}", ""):
            operator = "len"
            self.pos += 1
        elif text.startswith("!", self.pos) and text[self.pos + 1 : self.pos + 2] != "}":
            operator = "!"
            self.pos += 1
        name = self._parameter_name(start)
        index = None
        if text.startswith("[", self.pos):
            self.pos += 1
            index = self.scan_until("]")
            self._expect("]", start)
        argument = second = None
        if not text.startswith("}", self.pos) and not operator:
            operator = next(
                (op for op in _PARAMETER_OPERATORS if text.startswith(op, self.pos)), "?bad"
            )
            if operator == "?bad":
                self.scan_until("}", in_double_quotes=in_double_quotes)
            else:
                self.pos += len(operator)
                stops = "/}" if operator[0] == "/" else (":}" if operator == ":" else "}")
                argument = self.scan_until(stops, in_double_quotes=in_double_quotes)
                if self.pos < len(text) and text[self.pos] in "/:" and text[self.pos] in stops:
                    self.pos += 1
                    second = self.scan_until("}", in_double_quotes=in_double_quotes)
        elif operator == "!" and not text.startswith("}", self.pos):
            self.scan_until("}", in_double_quotes=in_double_quotes)
            operator = "?bad"
        self._expect("}", start)
        self.depth -= 1
        return Parameter(name, text[start : self.pos], operator, index, argument, second)

    def _parameter_name(self, start: int) -> str:
        text = self.text
        name = _NAME.match(text, self.pos)
        if name:
            self.pos = name.end()
            return name.group()
        digits = re.compile(r"[0-9]+").match(text, self.pos)
        if digits:
            self.pos = digits.end()
            return digits.group()
        char = text[self.pos : self.pos + 1]
        if char and char in _SPECIAL_PARAMETERS:
            self.pos += 1
            return char
        raise LexError("bad substitution", start)

    def _expect(self, char: str, start: int) -> None:
        if not self.text.startswith(char, self.pos):
            raise LexError(f"unterminated `{self.text[start : start + 2]}` (no `{char}`)", start)
        self.pos += 1


def sub_scanner(parent: WordScanner, *, text: str, first_line: int) -> WordScanner:
    """A scanner of the same kind over a piece of text (an arithmetic expression)."""
    scanner = type(parent)(text, parent.path, first_line)
    scanner.depth = parent.depth
    return scanner


def arithmetic_end(text: str, open_paren: int) -> int | None:
    """The offset just after the `))` closing the `((` at `open_paren`, or None when the
    parentheses close some other way (then it is a subshell inside a subshell)."""
    index = open_paren + 2
    depth = 0
    while index < len(text):
        char = text[index]
        if char in "'\"":
            close = text.find(char, index + 1)
            if close < 0:
                return None
            index = close + 1
            continue
        if char == "\\":
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index + 2 if text.startswith("))", index) else None
            depth -= 1
        index += 1
    return None


def _flush(literal: list[str], parts: list[WordPart]) -> None:
    if literal:
        parts.append(Literal("".join(literal)))
        literal.clear()
