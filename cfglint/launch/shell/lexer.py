"""Shell text into tokens: words, operators, redirections, newlines; comments and here-document
bodies skipped, line continuations joined.

`tokenize` stops at the first construct bash would refuse (an unterminated quote) and says where
it starts; the tokens before it are still good, as bash runs the commands before a syntax error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cfglint.launch.shell.tree import ArrayItems, DoubleQuoted, Literal, Quoted, Word, WordPart
from cfglint.launch.shell.words import LexError, WordScanner, arithmetic_end
from cfglint.types import Span

# Longest first.
_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")")
_REDIRECTIONS = ("&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")
_OPERATOR_STARTS = frozenset(";&|()<>0123456789")
_BLANKS = re.compile(r"(?:[ \t]|\\\n)+")
_FD = re.compile(r"[0-9]+(?=[<>])")
_ARRAY_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "op", "redirect", "newline", "arith", "array", "end"
    text: str  # the operator; the name of an array assignment
    span: Span
    word: Word | None = None  # a word; the expression of `(( ))`
    fd: str = ""  # the file descriptor written before a redirection (`2>`)
    items: tuple[Word, ...] = ()  # the elements of `name=(...)`
    append: bool = False  # `name+=(...)`


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    line: int
    message: str


class Lexer(WordScanner):
    def __init__(self, text: str, path: Path, first_line: int = 1) -> None:
        super().__init__(text, path, first_line)
        self._heredocs: list[tuple[str, bool]] = []  # (delimiter, strip leading tabs)
        self._heredoc_operator: str | None = None

    def next_token(self) -> Token:
        text = self.text
        while True:
            blanks = _BLANKS.match(text, self.pos)
            if blanks:
                self.pos = blanks.end()
            if self.pos >= len(text):
                return Token("end", "", self.span(self.pos, self.pos))
            if text[self.pos] != "#":
                break
            newline = text.find("\n", self.pos)
            self.pos = len(text) if newline < 0 else newline
        start = self.pos
        char = text[start]
        if char == "\n":
            self.pos += 1
            token = Token("newline", "\n", self.span(start, self.pos))
            self._skip_heredoc_bodies()
            return token
        if char in _OPERATOR_STARTS:
            operator_token = self._operator(start)
            if operator_token is not None:
                return operator_token
        word = self.word()
        if self._heredoc_operator is not None:
            self._heredocs.append((_unquoted(word.parts), self._heredoc_operator == "<<-"))
            self._heredoc_operator = None
        array = _ARRAY_NAME.fullmatch(word.source)
        if array and text.startswith("(", self.pos):
            items = self._array_items(start)
            return Token(
                "array",
                array.group(1),
                self.span(start, self.pos),
                append=bool(array.group(2)),
                items=items,
            )
        return Token("word", word.source, word.span, word)

    def _operator(self, start: int) -> Token | None:
        """The operator, redirection or `((` at `start`, if one starts there."""
        text = self.text
        if text.startswith("((", start):
            end = arithmetic_end(text, start)
            if end is not None:
                line, _ = self.line_column(start + 2)
                inner = Lexer(text[start + 2 : end - 2], self.path, line)
                inner.depth = self.depth
                self.pos = end
                expression = inner.scan_until("")
                return Token("arith", "((", self.span(start, end), expression)
        fd = _FD.match(text, start)
        redirect_at = fd.end() if fd else start
        if not text.startswith(("<(", ">("), redirect_at):
            for operator in _REDIRECTIONS:
                if text.startswith(operator, redirect_at):
                    self.pos = redirect_at + len(operator)
                    if operator in ("<<", "<<-"):
                        self._heredoc_operator = operator
                    span = self.span(start, self.pos)
                    return Token("redirect", operator, span, fd=fd.group() if fd else "")
        for operator in _OPERATORS:
            if text.startswith(operator, start):
                self.pos = start + len(operator)
                return Token("op", operator, self.span(start, self.pos))
        return None

    def _array_items(self, start: int) -> tuple[Word, ...]:
        self.pos += 1
        items: list[Word] = []
        while True:
            token = self.next_token()
            if token.kind == "op" and token.text == ")":
                return tuple(items)
            if token.kind == "word" and token.word is not None:
                items.append(token.word)
            elif token.kind != "newline":
                raise LexError("unterminated array `(`", start)

    def skip_commands(self, start: int) -> int:
        """Find the `)` that closes a `$(` whose commands start at `start`."""
        self.pos = start
        parens = 0
        open_cases = 0
        while True:
            token = self.next_token()
            if token.kind == "end":
                raise LexError("unterminated `$(`", start - 2)
            if token.kind == "op" and token.text == "(":
                parens += 1
            elif token.kind == "op" and token.text == ")":
                if parens:
                    parens -= 1
                elif not open_cases:
                    return self.pos - 1
            elif token.kind == "word" and token.word is not None:
                literal = token.word.literal()
                open_cases += (literal == "case") - (literal == "esac" and open_cases > 0)

    def _skip_heredoc_bodies(self) -> None:
        text = self.text
        for delimiter, strip_tabs in self._heredocs:
            while self.pos < len(text):
                newline = text.find("\n", self.pos)
                end = len(text) if newline < 0 else newline
                line = text[self.pos : end]
                self.pos = min(end + 1, len(text))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self._heredocs.clear()


def _unquoted(parts: tuple[WordPart, ...]) -> str:
    """A here-document delimiter: the word with its quotes removed, nothing expanded."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, Literal | Quoted):
            out.append(part.text)
        elif isinstance(part, DoubleQuoted):
            out.append(_unquoted(part.parts))
        elif not isinstance(part, ArrayItems):
            out.append(part.source)
    return "".join(out)


def tokenize(
    text: str, path: Path, first_line: int = 1
) -> tuple[list[Token], SyntaxProblem | None]:
    """Every token of the text, ending with an "end" token; and what stopped it early, if any."""
    lexer = Lexer(text, path, first_line)
    tokens: list[Token] = []
    try:
        while True:
            token = lexer.next_token()
            tokens.append(token)
            if token.kind == "end":
                return tokens, None
    except LexError as error:
        line, _ = lexer.line_column(min(error.offset, len(text)))
        tokens.append(Token("end", "", lexer.span(lexer.pos, lexer.pos)))
        return tokens, SyntaxProblem(line, error.message)
    except RecursionError:
        tokens.append(Token("end", "", lexer.span(lexer.pos, lexer.pos)))
        return tokens, SyntaxProblem(lexer.line_column(lexer.pos)[0], "nested too deeply")
