"""A fake GitHub REST server on 127.0.0.1 for the review bot's tests: the endpoints the bot uses,
with state across runs, pagination, and failures on demand. Every request body it receives and
every response it sends is validated against GitHub's OpenAPI description; a mismatch is
recorded in `problems` (the fixture fails the test on any)."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
from review.openapi import GitHubOpenApi

PULL = "/repos/{owner}/{repo}/pulls/{pull_number}"
_ROUTES = [
    ("GET", PULL, re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)$")),
    ("GET", PULL + "/reviews", re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$")),
    ("POST", PULL + "/reviews", re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$")),
    (
        "PUT",
        PULL + "/reviews/{review_id}",
        re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews/(\d+)$"),
    ),
    (
        "PUT",
        PULL + "/reviews/{review_id}/dismissals",
        re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews/(\d+)/dismissals$"),
    ),
    ("GET", PULL + "/comments", re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$")),
]
BOT = "github-actions[bot]"


@dataclass
class Failure:
    """Answer the next matching request with this instead (then serve normally)."""

    method: str
    path_suffix: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "failure"


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int


class FakeGitHub:
    def __init__(self, openapi: GitHubOpenApi, token: str, repo: str = "octo/configs") -> None:
        self.openapi = openapi
        self.token = token
        self.repo = repo
        self.page_size = 2  # GitHub's pages hold up to 100; small pages exercise `Link`
        self.writable = True
        self.pulls: dict[int, dict[str, str]] = {}  # number -> {"base": sha, "head": sha}
        # path -> head lines GitHub's diff shows; None: accept any line.
        self.commentable: dict[str, set[int]] | None = None
        self.reviews: list[dict[str, Any]] = []
        self.comments: list[dict[str, Any]] = []
        self.failures: list[Failure] = []
        self.seen: list[Seen] = []
        self.problems: list[str] = []
        self._next_id = 100
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # serve_forever looks for shutdown() once per poll interval (0.5 s by default), which
        # every test would otherwise wait out on leaving the server.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what tests set up and read --------------------------------------------------------

    def user(self, login: str = BOT, kind: str = "Bot") -> Any:
        return self.openapi.example_of("simple-user", login=login, type=kind, id=41898282)

    def add_comment(
        self,
        body: str,
        *,
        path: str = "README.md",
        line: int | None = 1,
        login: str = "someone",
        review_id: int | None = None,
    ) -> dict[str, Any]:
        comment = self.openapi.example_of(
            "pull-request-review-comment",
            id=self._new_id(),
            body=body,
            path=path,
            line=line,
            side="RIGHT",
            original_line=line or 1,
            commit_id="0" * 40,
            original_commit_id="0" * 40,
            pull_request_review_id=review_id,
            user=self.user(login, "Bot" if login == BOT else "User"),
        )
        if line is None:
            del comment["line"]
        self.comments.append(comment)
        return comment

    def mark_outdated(self, path: str, line: int) -> None:
        """A push changed the commented line: GitHub keeps the comment, without a line.

        GitHub sends `"line": null` then, which its description does not allow: the fake
        leaves the key out instead (the bot reads both as outdated)."""
        for comment in self.comments:
            if comment["path"] == path and comment.get("line") == line:
                del comment["line"]

    def writes(self) -> list[Seen]:
        return [seen for seen in self.seen if seen.method != "GET"]

    def bot_comments(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["user"]["login"] == BOT]

    # -- serving ---------------------------------------------------------------------------

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def handle(
        self, method: str, target: str, headers: Any, raw: bytes
    ) -> tuple[int, dict[str, str], Any]:
        with self._lock:
            parts = urlsplit(target)
            query = parse_qs(parts.query)
            body = json.loads(raw) if raw else None
            status, extra, payload, template = self._answer(
                method, parts.path, query, headers, body
            )
            if template is not None:
                self._check(method, template, status, body, payload)
            self.seen.append(Seen(method, parts.path, query, body, status))
            return status, extra, payload

    def _answer(
        self, method: str, path: str, query: dict[str, list[str]], headers: Any, body: Any
    ) -> tuple[int, dict[str, str], Any, str | None]:
        route = next(
            (
                (template, match)
                for verb, template, pattern in _ROUTES
                if verb == method and (match := pattern.match(path))
            ),
            None,
        )
        if route is None:
            self.problems.append(f"the bot called an endpoint the fake lacks: {method} {path}")
            return 404, {}, {"message": "Not Found", "documentation_url": "x"}, None
        template, match = route
        if headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {}, {"message": "Bad credentials", "documentation_url": "x"}, template
        for failure in self.failures:
            if failure.method == method and path.endswith(failure.path_suffix):
                self.failures.remove(failure)
                error = {"message": failure.message, "documentation_url": "x"}
                return failure.status, failure.headers, error, template
        if f"{match[1]}/{match[2]}" != self.repo or int(match[3]) not in self.pulls:
            return 404, {}, {"message": "Not Found", "documentation_url": "x"}, template
        number = int(match[3])
        if method != "GET" and not self.writable:
            message = "Resource not accessible by integration"
            return 403, {}, {"message": message, "documentation_url": "x"}, template
        if template == PULL:
            return 200, {}, self._pull(number), template
        handler = {
            ("GET", PULL + "/reviews"): self._list_reviews,
            ("POST", PULL + "/reviews"): self._create_review,
            ("PUT", PULL + "/reviews/{review_id}"): self._update_review,
            ("PUT", PULL + "/reviews/{review_id}/dismissals"): self._dismiss_review,
            ("GET", PULL + "/comments"): self._list_comments,
        }[(method, template)]
        status, payload, extra = handler(number, match, query, body)
        return status, extra, payload, template

    def _check(self, method: str, template: str, status: int, body: Any, payload: Any) -> None:
        try:
            if body is not None:
                self.openapi.validate(self.openapi.request_schema(method, template), body)
        except jsonschema.ValidationError as error:
            self.problems.append(f"request {method} {template}: {error.message}")
        try:
            schema = self.openapi.response_schema(method, template, status)
            if schema is not None:
                self.openapi.validate(schema, payload)
        except (jsonschema.ValidationError, AssertionError) as error:
            self.problems.append(f"response {status} to {method} {template}: {error}")

    def _pull(self, number: int) -> Any:
        schema = self.openapi.response_schema("GET", PULL, 200)
        pull = self.openapi.example(schema, number=number)
        pull["base"] = {**pull["base"], "sha": self.pulls[number]["base"]}
        pull["head"] = {**pull["head"], "sha": self.pulls[number]["head"]}
        return pull

    def _page(
        self, items: list[Any], path: str, query: dict[str, list[str]]
    ) -> tuple[Any, dict[str, str]]:
        page = int(query.get("page", ["1"])[0])
        size = min(self.page_size, int(query.get("per_page", ["30"])[0]))
        start = (page - 1) * size
        headers = {}
        if start + size < len(items):
            headers["Link"] = f'<{self.url}{path}?page={page + 1}&per_page={size}>; rel="next"'
        return items[start : start + size], headers

    def _list_reviews(self, number: int, match: Any, query: Any, body: Any) -> Any:
        path = f"/repos/{self.repo}/pulls/{number}/reviews"
        page, headers = self._page(self.reviews, path, query)
        return 200, page, headers

    def _list_comments(self, number: int, match: Any, query: Any, body: Any) -> Any:
        path = f"/repos/{self.repo}/pulls/{number}/comments"
        page, headers = self._page(self.comments, path, query)
        return 200, page, headers

    def _create_review(self, number: int, match: Any, query: Any, body: Any) -> Any:
        for comment in body.get("comments", []):
            lines = (self.commentable or {}).get(comment["path"])
            if self.commentable is not None and (lines is None or comment["line"] not in lines):
                error = {
                    "message": "Unprocessable Entity",
                    "documentation_url": "x",
                    "errors": ["Line could not be resolved"],
                }
                return 422, error, {}
        state = {"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}[body["event"]]
        review = self.openapi.example_of(
            "pull-request-review",
            id=self._new_id(),
            body=body.get("body", ""),
            state=state,
            commit_id=body.get("commit_id", self.pulls[number]["head"]),
            user=self.user(),
            html_url=f"https://github.invalid/{self.repo}/pull/{number}#review",
        )
        self.reviews.append(review)
        for comment in body.get("comments", []):
            posted = self.add_comment(
                comment["body"],
                path=comment["path"],
                line=comment["line"],
                login=BOT,
                review_id=review["id"],
            )
            posted["start_line"] = comment.get("start_line")
        return 200, review, {}

    def _review(self, match: Any) -> dict[str, Any]:
        return next(r for r in self.reviews if r["id"] == int(match[4]))

    def _update_review(self, number: int, match: Any, query: Any, body: Any) -> Any:
        review = self._review(match)
        review["body"] = body["body"]
        return 200, review, {}

    def _dismiss_review(self, number: int, match: Any, query: Any, body: Any) -> Any:
        review = self._review(match)
        review["state"] = "DISMISSED"
        return 200, review, {}


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            status, headers, payload = fake.handle(self.command, self.path, self.headers, raw)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the test reads `fake.seen`

    return Handler
