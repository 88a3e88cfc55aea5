"""What a shell variable or an expanded word holds, as far as the file says.

A value is a run of segments. A known segment is text; an unknown one keeps the shell text that
stands for it (`$WORK_DIR`) and says why it is unknown and what kind of unknown it is:

- "outside": set outside the file (the environment, the launcher's own arguments);
- "computed": computed at run time (`$(nvidia-smi ...)`, a value set differently on two paths);
- "many": any number of words, none included (`${@:3}` with no caller, `$PY_ARGS`);
- "rank": differs from process to process (the variable of a loop that starts one per rank).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeAlias

Assumption: TypeAlias = tuple[str, str]  # (variable, the default taken for it)


class Segment(NamedTuple):
    text: str
    known: bool = True
    kind: str = ""  # for an unknown: "outside", "computed", "many", "rank"
    why: str = ""
    assumed: tuple[Assumption, ...] = ()  # defaults taken for variables the file does not set


Value: TypeAlias = tuple[Segment, ...]
EMPTY: Value = ()


def known(text: str, assumed: tuple[Assumption, ...] = ()) -> Value:
    return (Segment(text, True, "", "", assumed),)


def unknown(text: str, kind: str, why: str, assumed: tuple[Assumption, ...] = ()) -> Value:
    return (Segment(text, False, kind, why, assumed),)


def text_of(value: Value) -> str:
    return "".join(segment.text for segment in value)


def is_exact(value: Value) -> bool:
    return all(segment.known for segment in value)


def assumptions(value: Value) -> tuple[Assumption, ...]:
    return tuple(dict.fromkeys(item for segment in value for item in segment.assumed))


def first_unknown(value: Value) -> Segment | None:
    return next((segment for segment in value if not segment.known), None)


def unknown_kind(value: Value) -> str:
    """The kind an opaque stand-in for this value gets: "rank" wins, then "many" (only when the
    value is nothing but one such unknown), "outside", "computed"; "" when it is known."""
    kinds = [segment.kind for segment in value if not segment.known]
    if not kinds:
        return ""
    if "rank" in kinds:
        return "rank"
    if kinds == ["many"] and len(value) == 1:
        return "many"
    return "outside" if "outside" in kinds else "computed"


def opaque(value: Value, source: str, why: str = "") -> Value:
    """One unknown segment standing for a value that is not (all) known: its text is the shell
    text written where it is used (`$CONFIG`), the reason that of its first unknown part."""
    inner = first_unknown(value)
    reason = inner.why if inner is not None and inner.why else why
    kind = unknown_kind(value) or "computed"
    return unknown(source, kind, reason, assumptions(value))


def mixes_rank(value: Value) -> bool:
    return any(segment.kind == "rank" for segment in value)


def joined(values: list[Value], separator: str = " ") -> Value:
    out: list[Segment] = []
    for position, value in enumerate(values):
        if position and separator:
            out.append(Segment(separator))
        out.extend(value)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Variable:
    """A shell variable the file sets (or unsets)."""

    items: tuple[Value, ...]  # a plain variable is one item; an array any number
    exported: bool = False
    is_set: bool = True  # False: `unset X` (known to be unset)
    array: bool = False
    line: int = 0  # where it was set, for notes

    @property
    def scalar(self) -> Value:
        return self.items[0] if self.items else EMPTY


@dataclass(frozen=True, slots=True)
class Positional:
    """`$1`, `$2` ...: the known ones, and from which position on they are not known."""

    items: tuple[Value, ...]
    open_at: int | None = None  # from this 0-based index on, not known
    why: str = ""  # why they are not known

    def get(self, number: int) -> Value | None:
        """`$number` (1-based): its value, EMPTY when known to be absent, None when not known."""
        index = number - 1
        if self.open_at is not None and index >= self.open_at:
            return None
        return self.items[index] if index < len(self.items) else EMPTY


UNKNOWN_ARGUMENTS = Positional((), 0, "not known when the launcher is read on its own")


@dataclass(frozen=True, slots=True)
class Field:
    """One word of a command after expansion and field splitting."""

    segments: tuple[Segment, ...]
    source: str  # the word it came from, as written
    pattern: bool = False  # holds an unquoted `*` or `?`: bash would match file names

    @property
    def text(self) -> str:
        return text_of(self.segments)

    @property
    def exact(self) -> bool:
        return is_exact(self.segments)

    @property
    def many(self) -> bool:
        """Nothing but an unknown that may be any number of words (`$EXTRA_ARGS`)."""
        return len(self.segments) == 1 and self.segments[0].kind == "many"

    @property
    def rank(self) -> bool:
        return mixes_rank(self.segments)

    @property
    def why(self) -> str:
        inner = first_unknown(self.segments)
        return inner.why if inner is not None else ""

    @property
    def assumed(self) -> tuple[Assumption, ...]:
        return assumptions(self.segments)
