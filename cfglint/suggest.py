"""`did you mean 'cuda'?` for a mistyped target name or rule code."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` most likely meant (case aside), None when none is close."""
    by_folded = {choice.casefold(): choice for choice in choices}
    found = difflib.get_close_matches(word.casefold(), list(by_folded), n=1, cutoff=0.7)
    return by_folded[found[0]] if found else None


def did_you_mean(word: str, choices: Iterable[str], quote: str = "'") -> str:
    """`: did you mean 'cuda'?`, or nothing when no choice is close."""
    match = closest(word, choices)
    return f": did you mean {quote}{match}{quote}?" if match is not None else ""
