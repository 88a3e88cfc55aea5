"""Tokens into commands, following bash's grammar for the parts launchers use.

`parse_program` returns the file's complete commands (one per line, or a compound command over
several lines) up to the first syntax error, and the error: bash runs a script's commands one by
one and stops at a syntax error, so the commands before it are still started.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cfglint.launch.shell.lexer import SyntaxProblem, Token, tokenize
from cfglint.launch.shell.tree import (
    AndOr,
    ArithmeticCommand,
    ArithmeticFor,
    ArrayItems,
    Assignment,
    CaseArm,
    CaseClause,
    Command,
    CommandList,
    ConditionalCommand,
    ForLoop,
    FunctionDef,
    Group,
    IfClause,
    ListItem,
    Literal,
    Pipeline,
    Redirect,
    SimpleCommand,
    WhileLoop,
    Word,
    WordPart,
)
from cfglint.launch.shell.words import MAX_NESTING
from cfglint.types import Span

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?(\+?)=")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_LIST_ENDS = frozenset({")", *_CASE_ENDS})
_COMPOUND_PARSERS = {
    "if": "_if",
    "while": "_while",
    "until": "_while",
    "for": "_for",
    "case": "_case",
    "{": "_brace_group",
    "[[": "_conditional",
    "function": "_function_keyword",
}
# Reserved words that only close or continue a compound command: never a command's name.
_CLOSERS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}", "in"})


class ParseError(Exception):
    def __init__(self, message: str, token: Token) -> None:
        super().__init__(message)
        self.message = message
        self.token = token


class Parser:
    def __init__(
        self, tokens: list[Token], path: Path, text: str, first_line: int, *, truncated: bool
    ) -> None:
        self._text = text
        self._first_line = first_line
        self._line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
        self._tokens = tokens
        self._index = 0
        self._path = path
        self._truncated = truncated  # the lexer stopped early: the last command is incomplete
        self._depth = 0
        self._last = tokens[0]

    # -- token access

    def _peek(self, ahead: int = 0) -> Token:
        if ahead == 0:
            return self._tokens[self._index]  # never past the "end" token: see _advance
        return self._tokens[min(self._index + ahead, len(self._tokens) - 1)]

    def _advance(self) -> Token:
        token = self._peek()
        if token.kind != "end":
            self._index += 1
        self._last = token
        return token

    def _is(self, token: Token, *words: str) -> bool:
        """A reserved word (an unquoted literal word) or an operator."""
        if token.kind == "op":
            return token.text in words
        return token.kind == "word" and token.word is not None and token.word.literal() in words

    def _expect(self, *words: str) -> Token:
        token = self._peek()
        if not self._is(token, *words):
            raise self._error(token, f"`{words[0]}` expected")
        return self._advance()

    def _skip_newlines(self) -> None:
        while self._peek().kind == "newline":
            self._advance()

    def _error(self, token: Token, expected: str) -> ParseError:
        if token.kind == "end":
            return ParseError(f"unexpected end of file ({expected})", token)
        shown = token.text if token.kind != "newline" else "newline"
        return ParseError(f"syntax error near `{shown}` ({expected})", token)

    def _span(self, first: Token) -> Span:
        last = self._last.span
        start = first.span
        return Span(self._path, start.line, start.column, last.end_line, last.end_column)

    def _source(self, first: Token) -> str:
        """The text from the first token to the last one taken."""
        end = self._last.span
        start_offset = self._offset(first.span.line, first.span.column)
        end_offset = self._offset(end.end_line, end.end_column)
        return self._text[start_offset:end_offset].rstrip("; \t\n").strip()

    def _offset(self, line: int, column: int) -> int:
        index = min(max(line - self._first_line, 0), len(self._line_starts) - 1)
        return self._line_starts[index] + column - 1

    def _enter(self, token: Token) -> None:
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise ParseError(f"commands nested more than {MAX_NESTING} levels deep", token)

    # -- lists

    def program(self) -> tuple[list[CommandList], ParseError | None]:
        commands: list[CommandList] = []
        while True:
            self._skip_newlines()
            if self._peek().kind == "end":
                return commands, None
            try:
                commands.append(self._list(frozenset(), top=True))
                token = self._peek()
                if token.kind not in ("newline", "end"):
                    raise self._error(token, "a command expected")
            except ParseError as error:
                return commands, error

    def _list(self, stops: frozenset[str], *, top: bool = False) -> CommandList:
        """Commands separated by `;`, `&` or newlines, up to a stop word; at the top level, up
        to the end of the line (one complete command)."""
        first = self._peek()
        items: list[ListItem] = []
        if not top:
            self._skip_newlines()
        while True:
            token = self._peek()
            if token.kind == "end" or (top and token.kind == "newline"):
                break
            if token.kind == "op" and token.text in _LIST_ENDS:
                break
            if token.kind == "word" and stops and self._is(token, *stops):
                break
            command = self._and_or()
            separator = self._peek()
            background = self._is(separator, "&")
            if background or self._is(separator, ";"):
                self._advance()
            elif separator.kind == "end" and self._truncated:
                raise self._error(separator, "the text ends inside this command")
            items.append(ListItem(command, background))
            if separator.kind == "newline" or background or self._is(separator, ";"):
                if top and self._peek().kind == "newline":
                    break
                if not top:
                    self._skip_newlines()
            else:
                break
        return CommandList(tuple(items), self._span(first), self._source(first))

    def _and_or(self) -> AndOr:
        first = self._peek()
        head = self._pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while self._is(self._peek(), "&&", "||"):
            operator = self._advance().text
            self._skip_newlines()
            rest.append((operator, self._pipeline()))
        return AndOr(head, tuple(rest), self._span(first))

    def _pipeline(self) -> Pipeline:
        first = self._peek()
        negated = False
        while self._is(first, "!") and first.kind == "word":
            negated = not negated
            self._advance()
            first = self._peek()
        commands = [self._command()]
        while self._is(self._peek(), "|", "|&"):
            self._advance()
            self._skip_newlines()
            commands.append(self._command())
        return Pipeline(tuple(commands), negated, self._span(first), self._source(first))

    # -- commands

    def _command(self) -> Command:
        token = self._peek()
        self._enter(token)
        try:
            command = self._compound(token)
            if command is None:
                return self._simple()
            self._redirects()
            return command
        finally:
            self._depth -= 1

    def _compound(self, token: Token) -> Command | None:
        if token.kind == "arith" and token.word is not None:
            self._advance()
            return ArithmeticCommand(token.word, token.span)
        if self._is(token, "("):
            self._advance()
            body = self._list(frozenset())
            self._expect(")")
            return Group(body, True, self._span(token))
        if token.kind != "word" or token.word is None:
            return None
        literal = token.word.literal()
        if literal in _COMPOUND_PARSERS:
            parse: Callable[[Parser], Command] = getattr(Parser, _COMPOUND_PARSERS[literal])
            return parse(self)
        if (
            literal is not None
            and _NAME.fullmatch(literal)
            and self._is(self._peek(1), "(")
            and self._is(self._peek(2), ")")
        ):
            return self._function(token)
        return None

    def _if(self) -> IfClause:
        first = self._advance()
        branches: list[tuple[CommandList, CommandList]] = []
        otherwise: CommandList | None = None
        while True:
            condition = self._list(frozenset({"then"}))
            self._expect("then")
            body = self._list(frozenset({"elif", "else", "fi"}))
            branches.append((condition, body))
            keyword = self._expect("elif", "else", "fi")
            if self._is(keyword, "else"):
                otherwise = self._list(frozenset({"fi"}))
                self._expect("fi")
                break
            if self._is(keyword, "fi"):
                break
        return IfClause(tuple(branches), otherwise, self._span(first))

    def _while(self) -> WhileLoop:
        first = self._advance()
        condition = self._list(frozenset({"do"}))
        body = self._do_done()
        return WhileLoop(condition, body, self._is(first, "until"), self._span(first))

    def _do_done(self) -> CommandList:
        self._skip_newlines()
        self._expect("do")
        body = self._list(frozenset({"done"}))
        self._expect("done")
        return body

    def _for(self) -> ForLoop | ArithmeticFor:
        first = self._advance()
        token = self._peek()
        if token.kind == "arith" and token.word is not None:
            self._advance()
            if self._is(self._peek(), ";"):
                self._advance()
            init, condition, step = _split_arithmetic_for(token.word)
            return ArithmeticFor(init, condition, step, self._do_done(), self._span(first))
        name = token.word.literal() if token.kind == "word" and token.word else None
        if name is None or not _NAME.fullmatch(name):
            raise self._error(token, "a loop variable expected")
        self._advance()
        self._skip_newlines()
        words: tuple[Word, ...] | None = None
        if self._is(self._peek(), "in"):
            self._advance()
            collected: list[Word] = []
            while self._peek().kind == "word" and self._peek().word is not None:
                word = self._advance().word
                assert word is not None
                collected.append(word)
            words = tuple(collected)
        if self._is(self._peek(), ";"):
            self._advance()
        return ForLoop(name, words, self._do_done(), self._span(first))

    def _case(self) -> CaseClause:
        first = self._advance()
        token = self._advance()
        if token.kind != "word" or token.word is None:
            raise self._error(token, "a word after `case` expected")
        subject = token.word
        self._skip_newlines()
        self._expect("in")
        arms: list[CaseArm] = []
        while True:
            self._skip_newlines()
            if self._is(self._peek(), "esac"):
                self._advance()
                break
            if self._is(self._peek(), "("):
                self._advance()
            patterns = [self._pattern()]
            while self._is(self._peek(), "|"):
                self._advance()
                patterns.append(self._pattern())
            self._expect(")")
            body = self._list(frozenset({"esac"}))
            arms.append(CaseArm(tuple(patterns), body))
            if self._is(self._peek(), *_CASE_ENDS):
                self._advance()
            elif not self._is(self._peek(), "esac"):
                raise self._error(self._peek(), "`;;` or `esac` expected")
        return CaseClause(subject, tuple(arms), self._span(first))

    def _pattern(self) -> Word:
        token = self._advance()
        if token.kind != "word" or token.word is None:
            raise self._error(token, "a pattern expected")
        return token.word

    def _brace_group(self) -> Group:
        first = self._advance()
        body = self._list(frozenset({"}"}))
        self._expect("}")
        return Group(body, False, self._span(first))

    def _conditional(self) -> ConditionalCommand:
        first = self._advance()
        words: list[Word] = []
        while True:
            token = self._advance()
            if token.kind in ("end", "newline"):
                raise self._error(token, "`]]` expected")
            if token.kind == "word" and token.word is not None:
                if token.word.literal() == "]]":
                    break
                words.append(token.word)
            else:
                words.append(Word((Literal(token.text),), token.text, token.span))
        return ConditionalCommand(tuple(words), self._span(first))

    def _function_keyword(self) -> FunctionDef:
        first = self._advance()
        token = self._peek()
        name = token.word.literal() if token.kind == "word" and token.word else None
        if name is None:
            raise self._error(token, "a function name expected")
        self._advance()
        if self._is(self._peek(), "(") and self._is(self._peek(1), ")"):
            self._advance()
            self._advance()
        self._skip_newlines()
        return FunctionDef(name, self._command(), self._span(first))

    def _function(self, first: Token) -> FunctionDef:
        assert first.word is not None
        name = first.word.literal() or ""
        for _ in range(3):
            self._advance()
        self._skip_newlines()
        return FunctionDef(name, self._command(), self._span(first))

    def _redirects(self) -> list[Redirect]:
        redirects: list[Redirect] = []
        while self._peek().kind == "redirect":
            redirects.append(self._redirect())
        return redirects

    def _redirect(self) -> Redirect:
        operator = self._advance()
        target = self._peek()
        if target.kind != "word" or target.word is None:
            raise self._error(target, f"a file name after `{operator.text}` expected")
        self._advance()
        return Redirect(operator.text, operator.fd, target.word)

    def _simple(self) -> SimpleCommand:
        first = self._peek()
        if first.kind == "word" and first.word is not None and first.word.literal() in _CLOSERS:
            raise self._error(first, "a command expected")
        assignments: list[Assignment] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            token = self._peek()
            if token.kind == "redirect":
                redirects.append(self._redirect())
            elif token.kind == "array":
                self._advance()
                if words:
                    words.append(_array_word(token))
                else:
                    assignments.append(
                        Assignment(token.text, None, token.items, append=token.append)
                    )
            elif token.kind == "word" and token.word is not None:
                assignment = None if words else _assignment(token.word)
                if assignment is not None:
                    assignments.append(assignment)
                else:
                    words.append(token.word)
                self._advance()
            else:
                break
        if not (assignments or words or redirects):
            raise self._error(first, "a command expected")
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects), self._span(first))


def _assignment(word: Word) -> Assignment | None:
    """`NAME=value`, `NAME+=value`, `NAME[i]=value`: a word whose unquoted start says so."""
    if not word.parts or not isinstance(word.parts[0], Literal):
        return None
    head = word.parts[0].text
    match = _ASSIGNMENT.match(head)
    if match is None:
        return None
    rest = head[match.end() :]
    parts = ((Literal(rest),) if rest else ()) + word.parts[1:]
    value = Word(parts, word.source[match.end() :], word.span)
    index = match.group(2)
    index_word = None if index is None else Word((Literal(index),), index, word.span)
    return Assignment(match.group(1), value, append=bool(match.group(3)), index=index_word)


def assignment_of(word: Word) -> Assignment | None:
    """The assignment an argument of `export`, `local`, `declare` spells, if any."""
    if len(word.parts) == 2 and isinstance(word.parts[1], ArrayItems):
        head = word.parts[0]
        match = _ASSIGNMENT.fullmatch(head.text) if isinstance(head, Literal) else None
        if match:
            items = word.parts[1].items
            return Assignment(match.group(1), None, items, append=bool(match.group(3)))
    return _assignment(word)


def _array_word(token: Token) -> Word:
    head = Literal(token.text + ("+=" if token.append else "="))
    return Word((head, ArrayItems(token.items)), token.text, token.span)


def _split_arithmetic_for(expression: Word) -> tuple[Word, Word, Word]:
    """`for ((init; condition; step))`: the three expressions, split at the top-level `;`."""
    pieces: list[list[WordPart]] = [[]]
    for part in expression.parts:
        if isinstance(part, Literal) and ";" in part.text:
            for position, text in enumerate(part.text.split(";")):
                if position:
                    pieces.append([])
                if text:
                    pieces[-1].append(Literal(text))
        else:
            pieces[-1].append(part)
    pieces += [[], []]
    sources = [*expression.source.split(";"), "", ""]

    def word(index: int) -> Word:
        return Word(tuple(pieces[index]), sources[index].strip(), expression.span)

    return word(0), word(1), word(2)


def parse_program(
    text: str, path: Path, first_line: int = 1
) -> tuple[list[CommandList], SyntaxProblem | None]:
    tokens, lex_problem = tokenize(text, path, first_line)
    parser = Parser(tokens, path, text, first_line, truncated=lex_problem is not None)
    commands, error = parser.program()
    if lex_problem is not None and (error is None or error.token.kind == "end"):
        return commands, lex_problem
    if error is not None:
        return commands, SyntaxProblem(error.token.span.line, error.message)
    return commands, None
