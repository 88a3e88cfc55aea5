"""`did you mean 'cuda'?` for a mistyped target name or rule code."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_PART_SEPARATORS = re.compile(r"[-_.]")


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` most likely meant (case aside), None when none is close or several
    are equally likely."""
    by_folded = {choice.casefold(): choice for choice in choices}
    folded = word.casefold()
    if not folded:
        return None
    # What users type from the hardware's or the rule's name: the start of a choice, or one of
    # its parts ('t20' or 'gcu' for 't20-gcu'). Only one such choice is a guess worth making.
    named = [
        choice
        for name, choice in by_folded.items()
        if name.startswith(folded) or folded in _PART_SEPARATORS.split(name)
    ]
    if named:
        return named[0] if len(named) == 1 else None
    found = difflib.get_close_matches(folded, list(by_folded), n=1, cutoff=0.7)
    return by_folded[found[0]] if found else None


def did_you_mean(word: str, choices: Iterable[str], quote: str = "'") -> str:
    """`: did you mean 'cuda'?`, or nothing when no choice is close."""
    match = closest(word, choices)
    return f": did you mean {quote}{match}{quote}?" if match is not None else ""
