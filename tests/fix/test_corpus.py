"""Every real OpenMMLab config: a fix parses, touches only its region, and is stable."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import ensure_corpus

from cfglint.fix import FixNotApplicable, apply_text_edits, check_still_valid, edits_for_file
from cfglint.types import KeyChange

# One set, so each file is parsed twice only (about 30 ms a parse).
CHANGES = [
    KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo"),
    KeyChange(("model_wrapper_cfg", "device_ids"), None),
    KeyChange(("model_wrapper_cfg", "output_device"), None),
]


def _configs() -> list[Path]:
    """Every `.py` file of the corpus, bases included (downloaded once, like the other corpus
    tests)."""
    return sorted(
        path for root in ensure_corpus().config_roots for path in root.rglob("*.py")
    )


def _check(path: Path, changes: list[KeyChange]) -> bool:
    """True when the file was edited; asserts the edit is sound."""
    source = path.read_text(encoding="utf-8")
    try:
        edits = edits_for_file(path, source, changes)
    except FixNotApplicable:
        return False
    result = apply_text_edits(source, edits)
    assert check_still_valid(path, result) is None, path
    assert edits_for_file(path, result, changes) == (), path
    # Outside the edits, every byte is the original's.
    first = min((e.span.line for e in edits), default=None)
    if first is not None:
        lines, new_lines = source.splitlines(keepends=True), result.splitlines(keepends=True)
        assert new_lines[: first - 1] == lines[: first - 1], path
        last = max(e.span.end_line for e in edits)
        tail = len(lines) - last
        assert tail <= 0 or new_lines[-tail:] == lines[-tail:], path
    return bool(edits)


@pytest.mark.corpus
def test_corpus_fixes_are_sound() -> None:
    configs = _configs()
    assert len(configs) > 2000
    edited = sum(_check(path, CHANGES) for path in configs)
    # Nearly every config can take the change (the rest are refused, never guessed).
    assert edited > 0.9 * len(configs)
