"""Where a new entry goes in a bracketed container, and how an entry is cut out of one.

Shared by Python dicts and JSON objects: both are a list of entries between brackets, separated
by commas. Three layouts are recognised:

* closing bracket on its own line: each new entry is a new line before it, indented like its
  siblings, with a trailing comma when the last entry has one;
* hanging (entries start their own lines, the closing bracket follows the last one): a new line
  after the last entry, aligned with it;
* one line: ``, entry`` after the last entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cfglint.fix.text import TextDoc
from cfglint.types import TextEdit


@dataclass(frozen=True, slots=True)
class Slot:
    """An entry's offsets: ``end`` excludes the comma, ``comma_end`` is after it (None: none)."""

    start: int
    end: int
    comma_end: int | None


@dataclass(frozen=True, slots=True)
class Container:
    slots: tuple[Slot, ...]
    open_end: int
    close_start: int
    # JSON forbids a trailing comma; Python configs keep the file's habit.
    trailing_comma_allowed: bool = True


def _sibling_indent(doc: TextDoc, box: Container, default_unit: str) -> str:
    for slot in reversed(box.slots):
        indent = doc.indent_before(slot.start)
        if indent is not None and doc.line_of(slot.start) != doc.line_of(box.open_end):
            return indent
    closing = doc.indent_before(box.close_start) or ""
    return closing + default_unit


def insert_entries(
    doc: TextDoc, box: Container, entries: Sequence[str], default_unit: str
) -> list[TextEdit]:
    """Edits adding ``entries`` (rendered text) at the end of the container."""
    newline = doc.newline
    last = box.slots[-1] if box.slots else None
    if doc.indent_before(box.close_start) is not None:
        indent = _sibling_indent(doc, box, default_unit)
        at = doc.line_start(box.close_start)
        comma = last is None or last.comma_end is not None
        comma = comma and box.trailing_comma_allowed
        if comma:
            lines = "".join(f"{indent}{entry},{newline}" for entry in entries)
            return [doc.edit(at, at, lines)]
        lines = f",{newline}".join(indent + entry for entry in entries) + newline
        edits = [doc.edit(at, at, lines)]
        if last is not None:
            edits.insert(0, doc.edit(last.end, last.end, ","))
        return edits
    if last is None:
        return [doc.edit(box.close_start, box.close_start, ", ".join(entries))]
    last_indent = doc.indent_before(last.start)
    separator = " "
    if last_indent is not None and doc.line_of(last.start) != doc.line_of(box.open_end):
        separator = newline + last_indent  # hanging: align with the last entry
    if last.comma_end is not None:
        text = "".join(f"{separator}{entry}," for entry in entries)
        return [doc.edit(last.comma_end, last.comma_end, text)]
    text = "".join(f",{separator}{entry}" for entry in entries)
    return [doc.edit(last.end, last.end, text)]


def _own_line_range(doc: TextDoc, box: Container, index: int) -> tuple[int, int] | None:
    """The entry's whole line(s) when nothing else shares them, else None."""
    slot = box.slots[index]
    after = slot.comma_end if slot.comma_end is not None else slot.end
    owns_line = doc.indent_before(slot.start) is not None and doc.rest_is_blank_or_comment(after)
    own_line = owns_line and doc.line_of(slot.start) != doc.line_of(box.open_end)
    # Without trailing commas, deleting the last line would leave the comma before it.
    comma_ok = box.trailing_comma_allowed or index + 1 < len(box.slots) or index == 0
    if own_line and comma_ok:
        return doc.line_start(slot.start), doc.next_line_start(after)
    return None


def _run_range(box: Container, first: int, last: int) -> tuple[int, int]:
    """Entries ``first``..``last`` (neighbours) cut out inline with the commas between them."""
    tail = box.slots[last]
    after = tail.comma_end if tail.comma_end is not None else tail.end
    if last + 1 < len(box.slots):
        return box.slots[first].start, box.slots[last + 1].start
    if first > 0:
        return box.slots[first - 1].end, after
    return box.slots[first].start, after


def _runs(indexes: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[list[int]] = []
    for index in sorted(set(indexes)):
        if runs and runs[-1][1] + 1 == index:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return [(first, last) for first, last in runs]


def removal_edits(doc: TextDoc, box: Container, indexes: Sequence[int]) -> list[TextEdit]:
    """Deletions for the entries ``indexes``: each with its comma, and its line if it owns one."""
    return [doc.edit(start, end, "") for start, end in _removal_ranges(doc, box, indexes)]


def _removal_ranges(doc: TextDoc, box: Container, indexes: Sequence[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for first, last in _runs(indexes):
        lines = [_own_line_range(doc, box, index) for index in range(first, last + 1)]
        if all(line is not None for line in lines):
            ranges.extend(line for line in lines if line is not None)
        else:
            ranges.append(_run_range(box, first, last))
    return ranges


def without(doc: TextDoc, box: Container, indexes: Sequence[int]) -> Container:
    """The container as it is once entries ``indexes`` are gone (to place new entries)."""
    ranges = _removal_ranges(doc, box, indexes)
    slots = []
    for index, slot in enumerate(box.slots):
        if index in indexes:
            continue
        comma = slot.comma_end
        if comma is not None and any(start < comma <= end for start, end in ranges):
            comma = None  # cut out with the entries after it
        slots.append(Slot(slot.start, slot.end, comma))
    return Container(tuple(slots), box.open_end, box.close_start, box.trailing_comma_allowed)
