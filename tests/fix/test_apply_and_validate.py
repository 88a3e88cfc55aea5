"""Applying edits: order, overlaps, and detecting a result that no longer parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.fix import OverlappingEditsError, apply_text_edits, check_still_valid
from cfglint.types import Span, TextEdit

PATH = Path("a.py")


def _edit(line: int, column: int, end_line: int, end_column: int, content: str) -> TextEdit:
    return TextEdit(Span(PATH, line, column, end_line, end_column), content)


def test_edits_apply_in_position_order_whatever_order_they_come_in() -> None:
    source = "a = 1\nb = 2\n"
    edits = [_edit(2, 5, 2, 6, "20"), _edit(1, 5, 1, 6, "10")]
    assert apply_text_edits(source, edits) == "a = 10\nb = 20\n"


def test_insertions_at_one_point_keep_their_given_order() -> None:
    edits = [_edit(1, 6, 1, 6, "X"), _edit(1, 6, 1, 6, "Y")]
    assert apply_text_edits("a = 1\n", edits) == "a = 1XY\n"
    # An insertion at the start of a replaced region goes before it, at its end after it.
    edits = [_edit(1, 5, 1, 6, "2"), _edit(1, 6, 1, 6, "]"), _edit(1, 5, 1, 5, "[")]
    assert apply_text_edits("a = 1\n", edits) == "a = [2]\n"


@pytest.mark.parametrize(
    "edits",
    [
        [_edit(1, 1, 1, 4, "x"), _edit(1, 3, 1, 6, "y")],
        [_edit(1, 1, 1, 4, "x"), _edit(1, 1, 1, 4, "x")],
        [_edit(1, 1, 2, 1, ""), _edit(1, 3, 1, 3, "inside")],
    ],
)
def test_overlapping_edits_are_rejected(edits: list[TextEdit]) -> None:
    with pytest.raises(OverlappingEditsError, match="overlap"):
        apply_text_edits("a = 1\nb = 2\n", edits)


def test_columns_count_characters_and_skip_the_bom() -> None:
    source = "\ufeff# 中文\r\nx = 1\r\n"
    assert apply_text_edits(source, [_edit(1, 5, 1, 5, "注释")]) == "\ufeff# 中文注释\r\nx = 1\r\n"


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("a.py", "x = dict(a=1\n", "line 1"),
        ("a.yaml", "a: [1\n", "expected"),
        ("a.yml", "a: 1\n b: 2\n", "mapping"),
        ("a.json", '{"a": 1,}', "line 1"),
    ],
)
def test_invalid_results_are_detected(name: str, text: str, reason: str) -> None:
    message = check_still_valid(Path(name), text)
    assert message is not None and reason in message and "\n" not in message


@pytest.mark.parametrize(
    ("name", "text"),
    [("a.py", "\ufeffx = 1\r\n"), ("a.yaml", "a: 1\n"), ("a.json", "{}"), ("a.toml", "x")],
)
def test_valid_results_pass(name: str, text: str) -> None:
    assert check_still_valid(Path(name), text) is None
