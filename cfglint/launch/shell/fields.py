"""Field splitting: an expanded word's pieces into the words a command receives.

An unquoted expansion is split at the IFS characters; quoted text is never split; `"$@"` breaks
fields between the arguments; an unquoted expansion that is empty makes no word, a quoted empty
string one empty word.
"""

from __future__ import annotations

from typing import NamedTuple

from cfglint.launch.shell.values import Field, Segment, Value


class Chunk(NamedTuple):
    segment: Segment
    split: bool  # an unquoted expansion: split into fields at IFS characters
    quoted: bool  # written inside quotes: makes a field even when empty
    pattern: bool = False


BREAK = Chunk(Segment("", True, "break"), False, False)  # a field ends here ("$@")


def value_chunks(value: Value, quoted: bool) -> list[Chunk]:
    return [
        Chunk(
            segment, not quoted, quoted, not quoted and ("*" in segment.text or "?" in segment.text)
        )
        for segment in value
    ]


def split_fields(chunks: list[Chunk], source: str, ifs: str) -> list[Field]:
    """Field splitting: unquoted expansion results split at IFS characters."""
    if not any(chunk.split or chunk is BREAK for chunk in chunks):
        # Nothing to split (the common case): one field, unless the word is empty.
        segments = tuple(c.segment for c in chunks if c.segment.text or not c.segment.known)
        if not segments and not any(chunk.quoted for chunk in chunks):
            return []
        pattern = any(chunk.pattern for chunk in chunks)
        return [Field(segments or (Segment(""),), source, pattern)]
    blanks = {char for char in ifs if char in " \t\n"}
    others = set(ifs) - blanks
    fields: list[Field] = []
    current: list[Segment] = []
    state = {"has": False, "pattern": False}

    def flush(force: bool = False) -> None:
        if state["has"] or force:
            segments = [segment for segment in current if segment.text or not segment.known]
            fields.append(Field(tuple(segments) or (Segment(""),), source, state["pattern"]))
        current.clear()
        state["has"] = state["pattern"] = False

    for chunk in chunks:
        if chunk is BREAK:
            flush()
            continue
        segment = chunk.segment
        state["pattern"] = state["pattern"] or chunk.pattern
        if chunk.quoted:
            state["has"] = True
        if not (chunk.split and segment.known):
            if segment.text or not segment.known:
                state["has"] = True
            current.append(segment)
            continue
        piece: list[str] = []
        for char in segment.text:
            if char in blanks or char in others:
                if piece:
                    current.append(segment._replace(text="".join(piece)))
                    state["has"] = True
                    piece.clear()
                flush(force=char in others)
            else:
                piece.append(char)
        if piece:
            current.append(segment._replace(text="".join(piece)))
            state["has"] = True
    flush()
    return fields
