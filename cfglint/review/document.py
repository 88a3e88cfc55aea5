"""The review JSON: what `--dry-run` prints and `--review-file` writes, and what `--post-from`
reads back in a `workflow_run` job (the two-workflow pattern for pull requests from forks).

`review` is the exact body of `POST /repos/{owner}/{repo}/pulls/{n}/reviews` for a pull request
the bot has not commented on yet; `findings` is what a later run needs to reconcile. A file read
back came from a job that ran on untrusted code: every field is checked before use.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from cfglint.errors import UserError
from cfglint.files import read_text_capped
from cfglint.review.model import Finding, Inline, Plan
from cfglint.review.reconcile import first_review

FORMAT = 1
MAX_FINDINGS = 5000
MAX_TEXT = 20000


def review_document(
    plan: Plan, repo: str | None, pull_request: int | None, event: str
) -> dict[str, Any]:
    return {
        "cfglint_review": FORMAT,
        "repository": repo,
        "pull_request": pull_request,
        "commit_id": plan.head_sha,
        "event": event,
        "checked": list(plan.checked),
        "problems": list(plan.problems),
        "findings": [asdict(finding) for finding in plan.findings],
        "review": first_review(plan, event),
    }


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# A review JSON (the artifact of the fork pattern: written by an untrusted run) is read up to
# this size; a review with GitHub's limits of comments and body text fits in far less.
MAX_JSON_BYTES = 16 * 1024 * 1024


def read_document(path: Path) -> tuple[Plan, int, str]:
    """(plan, pull request number, event) from a review JSON file; a UserError if malformed."""
    try:
        data = json.loads(read_text_capped(path, MAX_JSON_BYTES))
    except (OSError, ValueError, RecursionError) as error:
        raise UserError(f"{path}: cannot read the review JSON: {error}") from None
    try:
        return _parse(data)
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}: not a cfglint review JSON ({error})") from None


def _parse(data: Any) -> tuple[Plan, int, str]:
    if not isinstance(data, dict) or data.get("cfglint_review") != FORMAT:
        raise ValueError(f"`cfglint_review` must be {FORMAT}")
    number = _typed(data["pull_request"], int)
    event = _text(data["event"])
    if event not in ("COMMENT", "REQUEST_CHANGES"):
        raise ValueError(f"unknown event {event!r}")
    findings = _typed(data["findings"], list)
    if len(findings) > MAX_FINDINGS:
        raise ValueError("too many findings")
    sha = _text(data["commit_id"])
    if len(sha) != 40 or any(char not in "0123456789abcdef" for char in sha):
        raise ValueError("`commit_id` is not a commit hash")
    plan = Plan(
        sha,
        tuple(_finding(item) for item in findings),
        tuple(_text(item) for item in _typed(data["checked"], list)),
        tuple(_text(item) for item in _typed(data["problems"], list)),
    )
    return plan, number, event


def _finding(item: Any) -> Finding:
    item = _typed(item, dict)
    inline = item.get("inline")
    return Finding(
        fingerprint=_fingerprint(item["fingerprint"]),
        code=_text(item["code"]),
        severity=item["severity"] if item["severity"] in ("warning", "info") else "error",
        message=_text(item["message"]),
        url=_optional_text(item["url"]),
        path=_relative(item["path"]),
        line=_line(item["line"]),
        end_line=_line(item["end_line"]),
        target=_optional_text(item["target"]),
        configs=tuple(_relative(config) for config in _typed(item["configs"], list)),
        fix=_optional_text(item["fix"]),
        inline=_inline(inline) if inline is not None else None,
        body_reason=_optional_text(item["body_reason"]),
        fix_reason=_optional_text(item["fix_reason"]),
        covered_by=_fingerprint(item["covered_by"]) if item["covered_by"] is not None else None,
    )


def _inline(value: Any) -> Inline:
    value = _typed(value, dict)
    start = value["start_line"]
    return Inline(
        _line(value["line"]),
        _line(start) if start is not None else None,
        _optional_text(value["suggestion"]),
    )


def _typed(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    text: str = _typed(value, str)
    if len(text) > MAX_TEXT:
        raise ValueError("a text field is too long")
    return text


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _line(value: Any) -> int:
    line: int = _typed(value, int)
    if line < 1:
        raise ValueError("a line number below 1")
    return line


def _fingerprint(value: Any) -> str:
    text = _text(value)
    if len(text) != 16 or any(char not in "0123456789abcdef" for char in text):
        raise ValueError(f"bad fingerprint {text!r}")
    return text


def _relative(value: Any) -> str:
    """A path as the review names it; never one GitHub would read outside the repository."""
    text = _text(value)
    if not text or "\0" in text or "\\" in text or ".." in text.split("/"):
        raise ValueError(f"bad path {text!r}")
    return text
