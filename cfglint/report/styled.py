"""Lines made of styled pieces: plain text by default, ANSI colour through rich on request."""

from __future__ import annotations

import io
from collections.abc import Sequence

# A piece of a line and its rich style ("" for none).
Piece = tuple[str, str]
StyledLine = Sequence[Piece]


def join_lines(lines: Sequence[StyledLine], color: bool) -> str:
    if not lines:
        return ""
    if not color:
        return "".join("".join(text for text, _ in line) + "\n" for line in lines)
    # rich only for colour: a report piped to a file or a hook's log never imports it.
    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    # force_terminal: the caller already decided colour is wanted; rich must not second-guess.
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        highlight=False,
        soft_wrap=True,
        width=10_000,
    )
    for line in lines:
        text = Text()
        for piece, style in line:
            text.append(piece, style=style or None)
        console.print(text)
    return buffer.getvalue()
