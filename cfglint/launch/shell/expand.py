"""Word expansion as bash does it, on what the file knows: braces, `~`, parameters, command
substitution (through the interpreter, which runs nothing), arithmetic, field splitting.

Nothing is matched against file names: a word with `*` stays as written. What cannot be known
keeps its shell text (see values.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from cfglint.launch.shell.arith import evaluate
from cfglint.launch.shell.braces import expand_braces
from cfglint.launch.shell.fields import BREAK, Chunk, split_fields, value_chunks
from cfglint.launch.shell.patterns import MAX_SUBJECT, glob_to_regex, remove_affix, replace_pattern
from cfglint.launch.shell.state import ShellState
from cfglint.launch.shell.tree import (
    ArithmeticSubstitution,
    ArrayItems,
    CommandSubstitution,
    DoubleQuoted,
    Literal,
    Parameter,
    ProcessSubstitution,
    Quoted,
    Word,
    WordPart,
)
from cfglint.launch.shell.values import (
    EMPTY,
    Assumption,
    Field,
    Segment,
    Value,
    Variable,
    assumptions,
    is_exact,
    known,
    mixes_rank,
    opaque,
    text_of,
    unknown,
)

DEFAULT_IFS = " \t\n"
MAX_VALUE_CHARS = 100_000  # a longer computed string is not a launch argument: left unknown
_MANY_WORDS_NAME = re.compile(r"ARGS|ARGV|OPTS|OPTIONS|FLAGS|EXTRA|PARAMS", re.IGNORECASE)
_INTEGER = re.compile(r"\s*-?[0-9]+\s*")


class CommandRunner(Protocol):
    def substitute(self, part: CommandSubstitution) -> Value:
        """The output of a command substitution, as far as it can be known without running it."""


class _Lookup(NamedTuple):
    status: str  # "set", "unset" (known to be unset), "outside" (not set by the file)
    items: tuple[Value, ...]
    why: str = ""


class Expander:
    def __init__(self, state: ShellState, commands: CommandRunner) -> None:
        self.state = state
        self._commands = commands

    # -- public

    def fields(self, words: Sequence[Word]) -> list[Field]:
        out: list[Field] = []
        for word in words:
            for parts in expand_braces(word.parts):
                chunks = self._chunks(_with_tilde(parts), quoted=False)
                out.extend(split_fields(chunks, word.source, self._ifs()))
        return out

    def value(self, word: Word) -> Value:
        """The word as one string: assignments, `case` subjects, `[[ ]]` operands."""
        segments: list[Segment] = []
        for chunk in self._chunks(_with_tilde(word.parts), quoted=False):
            if chunk is BREAK:
                segments.append(Segment(" "))
            elif chunk.segment.text or not chunk.segment.known:
                segments.append(chunk.segment)
        return _bounded(tuple(segments), word.source)

    def pattern(self, word: Word) -> str | None:
        """The word as a glob pattern (quoted characters match themselves); None if unknown."""
        out: list[str] = []
        for chunk in self._chunks(word.parts, quoted=False):
            if not chunk.segment.known:
                return None
            text = chunk.segment.text
            out.append(re.escape(text) if chunk.quoted else glob_to_regex(text))
        return "".join(out)

    def arithmetic(self, word: Word, source: str) -> Value:
        """The value of an arithmetic expression (`$((...))`, `((...))`, `for ((...))`)."""
        return arithmetic_text(self.state, self.value(word), source)

    # -- chunks

    def _chunks(self, parts: Sequence[WordPart | Segment], *, quoted: bool) -> list[Chunk]:
        chunks: list[Chunk] = []
        for part in parts:
            if isinstance(part, Segment):  # a `~` already expanded
                chunks.append(Chunk(part, False, quoted))
            elif isinstance(part, Literal):
                pattern = not quoted and ("*" in part.text or "?" in part.text)
                chunks.append(Chunk(Segment(part.text), False, quoted, pattern))
            elif isinstance(part, Quoted):
                chunks.append(Chunk(Segment(part.text), False, True))
            elif isinstance(part, DoubleQuoted):
                if not all(_is_all_arguments(inner) for inner in part.parts):
                    chunks.append(Chunk(Segment(""), False, True))
                chunks.extend(self._chunks(part.parts, quoted=True))
            elif isinstance(part, Parameter):
                chunks.extend(self._parameter(part, quoted))
            elif isinstance(part, CommandSubstitution):
                chunks.extend(value_chunks(self._commands.substitute(part), quoted))
            elif isinstance(part, ArithmeticSubstitution):
                value = self.arithmetic(part.expression, part.source)
                chunks.extend(value_chunks(value, quoted))
            elif isinstance(part, ProcessSubstitution):
                why = f"`{part.source}` is a path chosen at run time"
                chunks.append(Chunk(Segment(part.source, False, "computed", why), False, quoted))
            elif isinstance(part, ArrayItems):
                text = " ".join(item.source for item in part.items)
                chunks.append(Chunk(Segment(f"({text})"), False, quoted))
        return chunks

    def _ifs(self) -> str:
        variable = self.state.variables.get("IFS")
        if variable is None or not variable.is_set or not is_exact(variable.scalar):
            return DEFAULT_IFS
        return text_of(variable.scalar)

    # -- parameters

    def _parameter(self, part: Parameter, quoted: bool) -> list[Chunk]:
        if part.name in ("@", "*") or self._subscript(part) in ("@", "*"):
            return self._every_item(part, quoted)
        found = self._lookup(part)
        value = self._apply(part, found)
        if quoted:
            # In double quotes a variable is one word, whatever it holds.
            value = tuple(
                segment._replace(kind="outside") if segment.kind == "many" else segment
                for segment in value
            )
        return value_chunks(_bounded(value, part.source), quoted)

    def _subscript(self, part: Parameter) -> str | None:
        if part.index is None:
            return None
        value = self.value(part.index)
        return text_of(value) if is_exact(value) else None

    def _lookup(self, part: Parameter) -> _Lookup:
        name = part.name
        state = self.state
        if name.isdigit():
            if name == "0":
                return _Lookup("set", (state.script,))
            argument = state.positional.get(int(name))
            if argument is None:
                why = f"`${name}` is the launcher's argument {name}: {state.positional.why}"
                return _Lookup("outside", (), why)
            return (
                _Lookup("set", (argument,))
                if argument or int(name) <= len(state.positional.items)
                else _Lookup("unset", ())
            )
        if name == "#":
            if state.positional.open_at is not None:
                return _Lookup(
                    "outside", (), f"`$#`, the number of arguments, is {state.positional.why}"
                )
            return _Lookup("set", (known(str(len(state.positional.items))),))
        if name in "?$!-":
            return _Lookup("outside", (), f"`${name}` is only known at run time")
        variable = state.variables.get(name)
        if variable is None:
            return self._unset_in_file(name)
        if not variable.is_set:
            return _Lookup("unset", ())
        return self._indexed(part, variable)

    def _unset_in_file(self, name: str) -> _Lookup:
        state = self.state
        if name == "PWD" and not state.cwd_unknown:
            return _Lookup("set", (known(str(state.cwd)),))
        if name == "OLDPWD" and state.old_cwd is not None:
            return _Lookup("set", (known(str(state.old_cwd)),))
        if name == "IFS":
            return _Lookup("set", (known(DEFAULT_IFS),))
        if name == "BASH_SOURCE":
            return _Lookup("set", (state.script,))
        return _Lookup("outside", (), f"`${name}` is set outside the file")

    def _indexed(self, part: Parameter, variable: Variable) -> _Lookup:
        if part.index is None:
            return _Lookup("set", (variable.scalar,))
        index = self.value(part.index)
        text = text_of(index)
        if is_exact(index) and _INTEGER.fullmatch(text):
            position = int(text)
            items = variable.items
            if -len(items) <= position < len(items):
                return _Lookup("set", (items[position],))
            return _Lookup("unset", ())
        return _Lookup("outside", (), f"the index of `{part.source}` is not known")

    def _apply(self, part: Parameter, found: _Lookup) -> Value:
        """The value of `${name<operator>argument}` for a looked-up name."""
        operator = part.operator
        name = part.name
        value = found.items[0] if found.items else EMPTY
        if operator in (":-", "-", ":=", "=", ":+", "+"):
            empty = found.status == "set" and is_exact(value) and not text_of(value)
            unset = found.status == "unset" or (operator[0] == ":" and empty)
            if found.status == "outside":
                # Not set by the file: the file's default is taken, and the note says so.
                return self._default_for_outside(part, found)
            if found.status == "set" and not is_exact(value) and operator[0] == ":":
                return opaque(value, part.source)
            if operator.endswith("+"):
                return self._argument(part) if not unset else EMPTY
            if not unset:
                return value
            default = self._argument(part)
            if operator.endswith("="):
                self._assign_default(name, default)
            return default
        if found.status == "outside":
            kind = "many" if _MANY_WORDS_NAME.search(name) and not name.isdigit() else "outside"
            return unknown(part.source, kind, found.why)
        if operator == "":
            return value if is_exact(value) else opaque(value, part.source)
        if not is_exact(value):
            return opaque(value, part.source)
        return self._operate(part, text_of(value))

    def _default_for_outside(self, part: Parameter, found: _Lookup) -> Value:
        operator = part.operator
        if operator.endswith("+"):
            value: Value = EMPTY
            taken = ""
        else:
            value = self._argument(part)
            taken = text_of(value)
        if operator.endswith("="):
            self._assign_default(part.name, value)
        if not is_exact(value):
            return opaque(value, part.source, found.why)
        assumption = (part.name, taken)
        if not value:
            return (Segment("", True, "", "", (assumption,)),)
        return tuple(segment._replace(assumed=(*segment.assumed, assumption)) for segment in value)

    def _assign_default(self, name: str, value: Value) -> None:
        if name.isdigit() or name in "@*#?$!-":
            return
        self.state.assign(name, (value,), line=0)

    def _argument(self, part: Parameter) -> Value:
        return self.value(part.argument) if part.argument is not None else EMPTY

    def _operate(self, part: Parameter, text: str) -> Value:
        operator = part.operator
        if operator == "len":
            return known(str(len(text)))
        if operator in ("^^", "^", ",,", ","):
            changed = text.upper() if operator.startswith("^") else text.lower()
            return known(changed if len(operator) == 2 else changed[:1] + text[1:])
        if operator == ":":
            return self._substring(part, text)
        if operator in ("#", "##", "%", "%%", "/", "//", "/#", "/%"):
            if len(text) > MAX_SUBJECT:
                return unknown(part.source, "computed", "too long to search statically")
            regex = self.pattern(part.argument) if part.argument is not None else ""
            if regex is None:
                return unknown(part.source, "computed", f"the pattern of `{part.source}`")
            if operator[0] in "#%":
                prefix = operator[0] == "#"
                return known(remove_affix(text, regex, prefix=prefix, longest=len(operator) == 2))
            replacement = self._argument_value(part.second)
            if replacement is None:
                return unknown(part.source, "computed", f"the replacement of `{part.source}`")
            anchor = operator[1:] if operator in ("/#", "/%") else ""
            every = operator == "//"
            return known(replace_pattern(text, regex, replacement, every=every, anchor=anchor))
        return unknown(part.source, "computed", f"`{part.source}` is not computed statically")

    def _argument_value(self, word: Word | None) -> str | None:
        if word is None:
            return ""
        value = self.value(word)
        return text_of(value) if is_exact(value) else None

    def _substring(self, part: Parameter, text: str) -> Value:
        offset, length = self._slice_numbers(part)
        if offset is None or (part.second is not None and length is None):
            return unknown(part.source, "computed", f"the offset of `{part.source}`")
        start = offset if offset >= 0 else max(len(text) + offset, 0)
        if length is None:
            return known(text[start:])
        end = start + length if length >= 0 else len(text) + length
        return known(text[start:end])

    def _slice_numbers(self, part: Parameter) -> tuple[int | None, int | None]:
        numbers: list[int | None] = []
        for word in (part.argument, part.second):
            if word is None:
                numbers.append(None)
                continue
            value = self.arithmetic(word, word.source)
            text = text_of(value)
            numbers.append(int(text) if is_exact(value) and _INTEGER.fullmatch(text) else None)
        return numbers[0], numbers[1]

    def _every_item(self, part: Parameter, quoted: bool) -> list[Chunk]:
        """`$@`, `$*`, `${@:3}`, `${arr[@]}`: one field per item (when quoted, `$*` is one)."""
        items, open_why = self._items(part)
        if part.operator == "len":
            if open_why:
                return [Chunk(Segment(part.source, False, "computed", open_why), False, quoted)]
            return [Chunk(Segment(str(len(items))), not quoted, quoted)]
        if part.operator == ":":
            sliced = self._slice_items(part, items, open_why)
            if sliced is None:
                why = f"the offset of `{part.source}` is not known"
                return [Chunk(Segment(part.source, False, "many", why), not quoted, quoted)]
            items, open_why = sliced
        elif part.operator:
            return [
                Chunk(Segment(part.source, False, "many", open_why or "not computed"), True, quoted)
            ]
        if quoted and (part.name == "*" or self._subscript(part) == "*"):
            separator = self._ifs()[:1]
            value = tuple(
                segment
                for index, item in enumerate(items)
                for segment in ((Segment(separator),) if index else ()) + item
            )
            if open_why:
                value = opaque(value + unknown(part.source, "many", open_why), part.source)
            return value_chunks(value, quoted)
        chunks: list[Chunk] = []
        for index, item in enumerate(items):
            if index:
                chunks.append(BREAK)
            chunks.extend(value_chunks(item, quoted))
        if open_why:
            if items:
                chunks.append(BREAK)
            chunks.append(Chunk(Segment(part.source, False, "many", open_why), not quoted, quoted))
        return chunks

    def _items(self, part: Parameter) -> tuple[tuple[Value, ...], str]:
        """The items and, when not all are known, why."""
        if part.name in ("@", "*"):
            positional = self.state.positional
            items = positional.items[: positional.open_at]
            return items, (positional.why if positional.open_at is not None else "")
        variable = self.state.variables.get(part.name)
        if variable is None:
            return (), f"`{part.source}` is not set in the file"
        return variable.items, ""

    def _slice_items(
        self, part: Parameter, items: tuple[Value, ...], open_why: str
    ) -> tuple[tuple[Value, ...], str] | None:
        offset, length = self._slice_numbers(part)
        if offset is None or (part.second is not None and length is None):
            return None
        if offset < 0:
            # `${@: -2}`: counted from the last argument, which is known only if all are.
            if open_why or (length is not None and length < 0):
                return None
            start = max(len(items) + offset, 0)
            return items[start : None if length is None else start + length], ""
        if part.name in ("@", "*"):
            # `${@:0}` starts with $0; `${@:1}` is "$@".
            items = (self.state.script, *items)
        if length is not None and length < 0:
            return None
        end = None if length is None else offset + length
        if open_why and (end is None or end > len(items)):
            return items[offset:], open_why
        return items[offset:end], ""


def arithmetic_text(state: ShellState, expression: Value, source: str) -> Value:
    """The value of an expanded arithmetic expression (also `let`'s arguments)."""
    if not is_exact(expression):
        return opaque(expression, source, "an operand is not known")
    variables = _ArithmeticVariables(state)
    result = evaluate(text_of(expression), variables)
    if result is None:
        kind = "rank" if variables.rank else "computed"
        why = variables.why or f"`{source}` cannot be computed statically"
        return unknown(source, kind, why)
    return known(str(result), (*assumptions(expression), *variables.assumed))


class _ArithmeticVariables:
    """Variables as numbers for the arithmetic evaluator; assignments go to the state."""

    def __init__(self, state: ShellState) -> None:
        self._state = state
        self.rank = False
        self.why = ""
        self.assumed: tuple[Assumption, ...] = ()  # defaults taken by the variables read

    def get_number(self, name: str) -> int | None:
        variable = self._state.variables.get(name)
        if variable is None:
            self.why = self.why or f"`{name}` is not set in the file"
            return None
        if not variable.is_set:
            return 0
        value = variable.scalar
        if not is_exact(value):
            self.rank = self.rank or mixes_rank(value)
            self.why = self.why or f"`{name}` is not known"
            return None
        self.assumed = tuple(dict.fromkeys((*self.assumed, *assumptions(value))))
        text = text_of(value).strip()
        if not text:
            return 0
        return int(text) if _INTEGER.fullmatch(text) else None

    def set_number(self, name: str, value: int | None) -> None:
        line = self._state.variables[name].line if name in self._state.variables else 0
        if value is None:
            item = unknown(f"${name}", "computed", f"`{name}` is computed from values not known")
        else:
            item = known(str(value), self.assumed)
        self._state.assign(name, (item,), line=line)


def _is_all_arguments(part: WordPart) -> bool:
    if not isinstance(part, Parameter) or part.operator not in ("", ":"):
        return False
    if part.name == "@":
        return True
    return part.index is not None and part.index.source == "@"


def _with_tilde(parts: Sequence[WordPart]) -> list[WordPart | Segment]:
    """A leading unquoted `~` (the home folder) becomes an unknown."""
    if not parts or not isinstance(parts[0], Literal) or not parts[0].text.startswith("~"):
        return list(parts)
    text = parts[0].text
    end = text.find("/")
    head = text if end < 0 else text[:end]
    home = Segment(head, False, "outside", f"`{head}` is a home folder, not known statically")
    rest: list[WordPart | Segment] = [Literal(text[len(head) :])] if len(head) < len(text) else []
    return [home, *rest, *parts[1:]]


def _bounded(value: Value, source: str) -> Value:
    if sum(len(segment.text) for segment in value) > MAX_VALUE_CHARS:
        return unknown(source, "computed", "too long to compute statically")
    return value
