"""The one way the golden tests run a fix: edits, applied, checked to parse and to be stable."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from cfglint.fix import apply_text_edits, check_still_valid, edits_for_file
from cfglint.types import KeyChange

Fixer = Callable[[str, str, Sequence[KeyChange]], str]


def _fixed(name: str, source: str, changes: Sequence[KeyChange]) -> str:
    path = Path(name)
    result = apply_text_edits(source, edits_for_file(path, source, changes))
    assert check_still_valid(path, result) is None
    # `fix` twice changes nothing the second time.
    assert edits_for_file(path, result, changes) == ()
    return result


@pytest.fixture
def fixed() -> Fixer:
    return _fixed

