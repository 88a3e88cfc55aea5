"""No pile-up: what to post, given what the bot already said on this pull request.

The first run posts one review: the summary as its body, an inline comment per finding. A later
run edits that summary in place (only when its text changes, so a clean pull request is said to
be clean once), posts a review only with the inline comments that are not there yet (a
comment GitHub marks outdated, `line: null`, no longer counts), and says which earlier findings
are fixed. With `REQUEST_CHANGES`, the bot's blocking reviews are dismissed once nothing fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cfglint.review.markdown import comment_body
from cfglint.review.markers import (
    UPDATE,
    fingerprint_in,
    is_ours,
    is_summary,
    summary_state,
)
from cfglint.review.model import OVER_LIMIT, Finding, Plan
from cfglint.review.summary import render_summary

# GitHub documents no limit, but large reviews fail or time out: more comments than this go to
# the summary instead.
MAX_INLINE_COMMENTS = 50
EVENTS = ("COMMENT", "REQUEST_CHANGES")

ApiObject = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Actions:
    create: dict[str, Any] | None  # the body of POST .../pulls/{n}/reviews
    update: tuple[int, str] | None  # (review id, new summary) for PUT .../reviews/{id}
    dismiss: tuple[int, ...]  # the bot's reviews requesting changes, once nothing fails
    plan: Plan  # with the comments over the limit moved to the summary
    fixed: Mapping[str, str]  # fingerprint -> label of earlier findings now gone
    kept: int  # inline comments already on the pull request


def reconcile(
    plan: Plan,
    reviews: Sequence[ApiObject],
    comments: Sequence[ApiObject],
    event: str = "COMMENT",
    max_comments: int = MAX_INLINE_COMMENTS,
) -> Actions:
    summary = _summary_review(reviews)
    bot = _login(summary) if summary is not None else None
    there = {
        fingerprint
        for comment in comments
        if (bot is None or _login(comment) == bot)
        and comment.get("line") is not None
        and (fingerprint := fingerprint_in(str(comment.get("body") or ""))) is not None
    }
    previous = summary_state(str(summary.get("body") or "")) if summary is not None else None
    current = {finding.fingerprint for finding in plan.findings}
    fixed = {}
    if previous is not None:
        fixed = {
            fingerprint: label
            for fingerprint, label in {**previous.fixed, **previous.open}.items()
            if fingerprint not in current
        }
    new = [f for f in plan.findings if f.inline is not None and f.fingerprint not in there]
    plan = _over_limit(plan, new[max_comments:])
    new_comments = [_comment(f, plan.findings) for f in new[:max_comments]]
    kept = sum(1 for f in plan.findings if f.inline is not None and f.fingerprint in there)
    body = render_summary(plan, fixed)
    review_event = event if plan.failing else "COMMENT"
    if summary is None:
        wanted = plan.findings or plan.problems or fixed
        create = _review(plan, body, new_comments, review_event) if wanted else None
        return Actions(create, None, (), plan, fixed, kept)
    update = None
    if _normalised(str(summary.get("body") or "")) != _normalised(body):
        update = (int(summary["id"]), body)
    blocking = [r for r in reviews if _login(r) == bot and r.get("state") == "CHANGES_REQUESTED"]
    create = None
    if new_comments or (review_event == "REQUEST_CHANGES" and not blocking):
        note = _update_note(len(new_comments), plan.head_sha, str(summary.get("html_url") or ""))
        create = _review(plan, note, new_comments, review_event)
    dismiss = tuple(int(r["id"]) for r in blocking) if not plan.failing else ()
    return Actions(create, update, dismiss, plan, fixed, kept)


def first_review(plan: Plan, event: str = "COMMENT") -> dict[str, Any] | None:
    """What a pull request the bot has not commented on yet gets (the dry run prints it)."""
    return reconcile(plan, (), (), event).create


def _summary_review(reviews: Sequence[ApiObject]) -> ApiObject | None:
    """The bot's summary: the latest review carrying the marker, a bot's first."""
    marked = [r for r in reviews if is_summary(str(r.get("body") or ""))]
    by_bots = [r for r in marked if (r.get("user") or {}).get("type") == "Bot"]
    chosen = by_bots or marked
    return max(chosen, key=lambda review: int(review["id"])) if chosen else None


def _login(item: ApiObject) -> str | None:
    user = item.get("user")
    return str(user.get("login")) if isinstance(user, Mapping) else None


def _over_limit(plan: Plan, overflow: Sequence[Finding]) -> Plan:
    moved = {finding.fingerprint for finding in overflow}
    if not moved:
        return plan
    findings = tuple(
        replace(f, inline=None, body_reason=OVER_LIMIT) if f.fingerprint in moved else f
        for f in plan.findings
    )
    return replace(plan, findings=findings)


def _comment(finding: Finding, findings: Sequence[Finding]) -> dict[str, Any]:
    inline = finding.inline
    assert inline is not None
    carrier = next((f.code for f in findings if f.fingerprint == finding.covered_by), None)
    comment: dict[str, Any] = {
        "path": finding.path,
        "line": inline.line,
        "side": "RIGHT",
        "body": comment_body(finding, carrier),
    }
    if inline.start_line is not None:
        comment.update(start_line=inline.start_line, start_side="RIGHT")
    return comment


def _review(plan: Plan, body: str, comments: list[dict[str, Any]], event: str) -> dict[str, Any]:
    return {"commit_id": plan.head_sha, "body": body, "event": event, "comments": comments}


def _update_note(count: int, head_sha: str, summary_url: str) -> str:
    what = f"{count} new finding{'s' if count != 1 else ''}" if count else "Findings remain"
    link = f" ([summary]({summary_url}), kept up to date)" if summary_url else ""
    return f"{UPDATE}\ncfglint: {what} at `{head_sha[:7]}`{link}."


def _normalised(text: str) -> str:
    return text.replace("\r\n", "\n").strip()


__all__ = ["EVENTS", "Actions", "first_review", "is_ours", "reconcile"]
