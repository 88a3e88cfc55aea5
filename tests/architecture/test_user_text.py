"""What users read never points at the team's own field reports ("seed 003", "the seeds'"):
users cannot look those up. A rule page quotes the runtime error instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cfglint.rules.docs import pages

REPO_ROOT = Path(__file__).resolve().parents[2]
# "seed 003", "Seed 000", "the seeds' training script", "the T20 seeds": never a random seed.
FIELD_REPORT = re.compile(r"\bseeds?\s+\d|\bseeds'|\bthe\s+(?:\w+\s+)?seeds\b", re.IGNORECASE)


def user_texts() -> dict[str, str]:
    texts = {f"docs/rules/{name} (generated)": text for name, text in pages().items()}
    for pattern in ("docs/**/*.md", "README.md", "schemas/*.yaml"):
        for path in sorted(REPO_ROOT.glob(pattern)):
            texts[str(path.relative_to(REPO_ROOT))] = path.read_text(encoding="utf-8")
    return texts


@pytest.mark.parametrize(
    "text", ["see seed 003", "Seed 000 had", "the seeds' error", "the T20 seeds"]
)
def test_the_pattern_finds_a_field_report(text: str) -> None:
    assert FIELD_REPORT.search(text)


@pytest.mark.parametrize("text", ["randomness = dict(seed=0)", "seeds the RNG", "seed=None"])
def test_the_pattern_leaves_random_seeds_alone(text: str) -> None:
    assert FIELD_REPORT.search(text) is None


def test_no_user_text_names_a_field_report() -> None:
    found = {
        where: match.group(0)
        for where, text in user_texts().items()
        if (match := FIELD_REPORT.search(text)) is not None
    }
    assert found == {}
