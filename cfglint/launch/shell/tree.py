"""The shell syntax a launcher is read into: words made of parts, and commands made of words.

Only what the reader needs to find launches is kept; every node knows where it is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from cfglint.types import Span

# ---------------------------------------------------------------------------
# Words


@dataclass(frozen=True, slots=True)
class Literal:
    """Unquoted text: brace expansion and `~` apply to it, field splitting does not."""

    text: str


@dataclass(frozen=True, slots=True)
class Quoted:
    """Text taken as written: single quotes, `$'...'`, a backslash escape, or the literal text
    inside double quotes."""

    text: str


@dataclass(frozen=True, slots=True)
class DoubleQuoted:
    parts: tuple[WordPart, ...]


@dataclass(frozen=True, slots=True)
class Parameter:
    """`$x`, `${x}`, `${x:-word}`, `${@:3}`, `${#x}`, `${arr[@]}` ..."""

    name: str  # "x", "1", "@", "#", "?", "0", "BASH_SOURCE"
    source: str  # as written
    operator: str = ""  # "", ":-", "-", ":=", ... "#", "%%", "/", "//", ":" (substring), "len"
    index: Word | None = None  # the array subscript
    argument: Word | None = None  # the default, pattern or offset
    second: Word | None = None  # the replacement of `/`, the length of `:`


@dataclass(frozen=True, slots=True)
class CommandSubstitution:
    """`$(...)` or a backquoted command: run in a subshell, its output replaces it."""

    body: str
    source: str
    line: int  # the line the body starts on


@dataclass(frozen=True, slots=True)
class ArithmeticSubstitution:
    """`$((...))` or `$[...]`: the expression is expanded first, then computed."""

    expression: Word
    source: str


@dataclass(frozen=True, slots=True)
class ProcessSubstitution:
    """`<(...)`, `>(...)`: a path chosen at run time."""

    source: str


@dataclass(frozen=True, slots=True)
class ArrayItems:
    """The `(a b c)` of `name=(a b c)`, where a declaration builtin gets it as an argument."""

    items: tuple[Word, ...]


WordPart: TypeAlias = (
    Literal
    | Quoted
    | DoubleQuoted
    | Parameter
    | CommandSubstitution
    | ArithmeticSubstitution
    | ProcessSubstitution
    | ArrayItems
)


@dataclass(frozen=True, slots=True)
class Word:
    parts: tuple[WordPart, ...]
    source: str
    span: Span

    def literal(self) -> str | None:
        """The word's text when it is one plain unquoted literal (a reserved word, a name)."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Literal):
            return self.parts[0].text
        return None


# ---------------------------------------------------------------------------
# Commands


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    value: Word | None  # `X=` sets the empty string: value is an empty word
    items: tuple[Word, ...] | None = None  # `X=(a b)`: an array
    append: bool = False  # `X+=...`
    index: Word | None = None  # `X[3]=...`


@dataclass(frozen=True, slots=True)
class Redirect:
    operator: str  # ">", ">>", "2>&1" is ">&" with fd "2", "<<", "<<<" ...
    fd: str
    target: Word | None


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    assignments: tuple[Assignment, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Pipeline:
    commands: tuple[Command, ...]
    negated: bool
    span: Span
    source: str = ""  # as written


@dataclass(frozen=True, slots=True)
class AndOr:
    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...]  # ("&&" | "||", pipeline)
    span: Span


@dataclass(frozen=True, slots=True)
class ListItem:
    command: AndOr
    background: bool


@dataclass(frozen=True, slots=True)
class CommandList:
    items: tuple[ListItem, ...]
    span: Span
    source: str = ""  # as written


@dataclass(frozen=True, slots=True)
class Group:
    """`{ ...; }`, or `( ... )` when `subshell`."""

    body: CommandList
    subshell: bool
    span: Span


@dataclass(frozen=True, slots=True)
class IfClause:
    branches: tuple[tuple[CommandList, CommandList], ...]  # (condition, body): if, elif ...
    otherwise: CommandList | None
    span: Span


@dataclass(frozen=True, slots=True)
class ForLoop:
    variable: str
    words: tuple[Word, ...] | None  # None: `for x; do` iterates over "$@"
    body: CommandList
    span: Span


@dataclass(frozen=True, slots=True)
class ArithmeticFor:
    init: Word
    condition: Word
    step: Word
    body: CommandList
    span: Span


@dataclass(frozen=True, slots=True)
class WhileLoop:
    condition: CommandList
    body: CommandList
    until: bool
    span: Span


@dataclass(frozen=True, slots=True)
class CaseArm:
    patterns: tuple[Word, ...]
    body: CommandList


@dataclass(frozen=True, slots=True)
class CaseClause:
    subject: Word
    arms: tuple[CaseArm, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class FunctionDef:
    name: str
    body: Command
    span: Span


@dataclass(frozen=True, slots=True)
class ArithmeticCommand:
    """`(( ... ))`: succeeds when the expression is not zero."""

    expression: Word
    span: Span


@dataclass(frozen=True, slots=True)
class ConditionalCommand:
    """`[[ ... ]]`: its words, with the operators `&&`, `||`, `(`, `)`, `<`, `>` as plain words."""

    words: tuple[Word, ...]
    span: Span


Command: TypeAlias = (
    SimpleCommand
    | Group
    | IfClause
    | ForLoop
    | ArithmeticFor
    | WhileLoop
    | CaseClause
    | FunctionDef
    | ArithmeticCommand
    | ConditionalCommand
)
