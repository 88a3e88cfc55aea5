"""Hidden markers in the bot's own comments: how a later run finds what an earlier one said.

Markdown hides HTML comments, and GitHub keeps them in the body the API returns. The summary's
marker also carries the findings it listed, so the next run can say which of them are fixed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_FINDING = re.compile(r"<!-- cfglint-review:finding ([0-9a-f]{16}) -->")
_SUMMARY = re.compile(r"<!-- cfglint-review:summary (\{.*?\}) -->", re.DOTALL)
UPDATE = "<!-- cfglint-review:update -->"
# What the state keeps at most, so that the summary stays within GitHub's body size.
MAX_REMEMBERED = 400
MAX_LABEL = 100


@dataclass(frozen=True, slots=True)
class SummaryState:
    open: dict[str, str] = field(default_factory=dict)  # fingerprint -> label
    fixed: dict[str, str] = field(default_factory=dict)


def finding_marker(fingerprint: str) -> str:
    return f"<!-- cfglint-review:finding {fingerprint} -->"


def fingerprint_in(body: str) -> str | None:
    match = _FINDING.search(body)
    return match[1] if match else None


def summary_marker(state: SummaryState) -> str:
    data = {
        "open": _bounded(state.open),
        "fixed": _bounded(state.fixed),
    }
    # `<` and `>` only occur inside JSON strings: escaped, nothing can close the comment early.
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"<!-- cfglint-review:summary {text} -->"


def is_summary(body: str) -> bool:
    return "<!-- cfglint-review:summary " in body


def is_ours(body: str) -> bool:
    return is_summary(body) or UPDATE in body or fingerprint_in(body) is not None


def summary_state(body: str) -> SummaryState:
    """The findings a summary listed; an unreadable marker reads as none."""
    match = _SUMMARY.search(body)
    if match is None:
        return SummaryState()
    try:
        data = json.loads(match[1])
    except ValueError:
        return SummaryState()
    if not isinstance(data, dict):
        return SummaryState()
    return SummaryState(_labels(data.get("open")), _labels(data.get("fixed")))


def _labels(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        str(key): str(label)[:MAX_LABEL]
        for key, label in value.items()
        if isinstance(key, str) and isinstance(label, str)
    }


def _bounded(labels: dict[str, str]) -> dict[str, str]:
    items = list(labels.items())[:MAX_REMEMBERED]
    return {key: label[:MAX_LABEL] for key, label in items}
