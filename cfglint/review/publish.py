"""Post what reconcile decided: read the bot's earlier reviews and comments, then create,
update and dismiss. A review whose inline comments GitHub refuses (422: a line its own diff
does not show) is posted again with those findings in the summary instead."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cfglint.review.github_api import GitHubClient, PermissionDenied, ValidationFailed
from cfglint.review.model import Plan
from cfglint.review.reconcile import Actions, reconcile
from cfglint.types import Notice

REFUSED = "GitHub refused it as an inline comment"
DISMISS_MESSAGE = "cfglint: every finding of this review is fixed."


@dataclass(frozen=True, slots=True)
class Posted:
    actions: Actions
    review_url: str | None  # the review created, if one was
    updated: bool
    dismissed: int
    notices: tuple[Notice, ...] = ()  # warnings: what it could not do


class PullRequestApi:
    """The endpoints the bot uses, for one pull request."""

    def __init__(self, client: GitHubClient, repo: str, number: int) -> None:
        self._client = client
        self._prefix = f"/repos/{repo}/pulls/{number}"

    def pull_request(self) -> Any:
        return self._client.get(self._prefix)

    def reviews(self) -> list[Any]:
        return self._client.paginate(f"{self._prefix}/reviews")

    def review_comments(self) -> list[Any]:
        return self._client.paginate(f"{self._prefix}/comments")

    def create_review(self, body: dict[str, Any]) -> Any:
        return self._client.send("POST", f"{self._prefix}/reviews", body)

    def update_review(self, review_id: int, body: str) -> Any:
        return self._client.send("PUT", f"{self._prefix}/reviews/{review_id}", {"body": body})

    def dismiss_review(self, review_id: int, message: str) -> Any:
        path = f"{self._prefix}/reviews/{review_id}/dismissals"
        return self._client.send("PUT", path, {"message": message, "event": "DISMISS"})


def publish(api: PullRequestApi, plan: Plan, event: str, max_comments: int) -> Posted:
    reviews, comments = api.reviews(), api.review_comments()
    actions = reconcile(plan, reviews, comments, event, max_comments)
    try:
        created = _apply(api, actions)
    except ValidationFailed:
        if actions.create is None or not actions.create["comments"]:
            raise
        posted = {comment["path"] + str(comment["line"]) for comment in actions.create["comments"]}
        findings = tuple(
            replace(f, inline=None, body_reason=REFUSED)
            if f.inline is not None and f.path + str(f.inline.line) in posted
            else f
            for f in actions.plan.findings
        )
        actions = reconcile(
            replace(plan, findings=findings), reviews, comments, event, max_comments
        )
        created = _apply(api, actions)
    warnings: list[Notice] = []
    dismissed = 0
    for review_id in actions.dismiss:
        try:
            api.dismiss_review(review_id, DISMISS_MESSAGE)
            dismissed += 1
        except PermissionDenied as error:
            warnings.append(
                Notice.warning(f"cannot dismiss the earlier review requesting changes: {error}")
            )
    url = str(created.get("html_url")) if isinstance(created, dict) else None
    return Posted(actions, url, actions.update is not None, dismissed, tuple(warnings))


def _apply(api: PullRequestApi, actions: Actions) -> Any:
    # The summary first: a new review's note links to it.
    if actions.update is not None:
        api.update_review(*actions.update)
    return api.create_review(actions.create) if actions.create is not None else None
