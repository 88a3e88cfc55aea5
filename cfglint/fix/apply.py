"""Apply text edits to a source, refusing edits that overlap."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfglint.fix.errors import OverlappingEditsError
from cfglint.fix.text import TextDoc, split_bom
from cfglint.types import TextEdit


def apply_text_edits(source: str, edits: Sequence[TextEdit]) -> str:
    """The source with every edit applied.

    Edits are ordered by position. Insertions at the same point keep the order they were given
    in, and an insertion at the start of a replaced region goes before it. Any other overlap
    raises OverlappingEditsError. A leading byte order mark is kept and is not counted in columns.
    """
    bom, text = split_bom(source)
    doc = TextDoc(Path(), text)
    located = []
    for index, edit in enumerate(edits):
        span = edit.span
        start = doc.offset(span.line, span.column)
        end = doc.offset(span.end_line, span.end_column)
        if end < start:
            raise ValueError(f"edit ends before it starts: {span}")
        located.append((start, end, index, edit))
    located.sort(key=lambda item: (item[0], item[1], item[2]))
    pieces: list[str] = []
    cursor = 0
    previous: TextEdit | None = None
    for start, end, _index, edit in located:
        if start < cursor:
            assert previous is not None
            raise OverlappingEditsError(f"edits overlap at {_where(previous)} and {_where(edit)}")
        pieces.append(text[cursor:start])
        pieces.append(edit.content)
        cursor = end
        previous = edit
    pieces.append(text[cursor:])
    return bom + "".join(pieces)


def _where(edit: TextEdit) -> str:
    span = edit.span
    return f"{span.line}:{span.column}-{span.end_line}:{span.end_column}"
