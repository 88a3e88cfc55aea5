"""A small GitHub REST client: pagination (`Link`), retries with backoff on server errors and
rate limits, one-line errors, and a token that never appears in any output.

Imported only when posting (it needs the `review` extra: httpx).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from cfglint import __version__
from cfglint.errors import UserError
from cfglint.review.event import Token

API_VERSION = "2022-11-28"
_RETRIED_STATUSES = frozenset({500, 502, 503, 504})


class ApiError(UserError):
    """A request GitHub refused or could not answer: one line, exit code 2."""


class PermissionDenied(ApiError):
    """403 that is not a rate limit: a read-only token (a pull request from a fork)."""


class ValidationFailed(ApiError):
    """422: GitHub understood the request and refused it (a line outside the diff)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 5
    first_backoff: float = 1.0  # seconds, doubled after each server error
    # Rate limits that would hold the job longer than this fail instead of waiting.
    longest_wait: float = 120.0


class GitHubClient:
    def __init__(
        self,
        api_url: str,
        token: Token,
        *,
        token_source: str = "the token",
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._api_url = api_url.rstrip("/")
        self._origin = urlsplit(self._api_url)[:2]
        self._token_source = token_source
        self._policy = policy or RetryPolicy()
        self._sleep, self._clock = sleep, clock
        self._http = httpx.Client(
            timeout=httpx.Timeout(30.0),
            headers={
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": f"cfglint/{__version__}",
                # httpx masks this header in its own reprs; nothing here prints it.
                "Authorization": f"Bearer {token.reveal()}",
            },
        )

    def __repr__(self) -> str:
        return f"GitHubClient({self._api_url!r})"

    def close(self) -> None:
        self._http.close()

    def get(self, path: str, params: dict[str, str] | None = None) -> Any:
        return self._request("GET", self._url(path), None, params)[0]

    def paginate(self, path: str) -> list[Any]:
        """Every item of a list endpoint, following `Link: <...>; rel="next"`."""
        items: list[Any] = []
        url: str | None = self._url(path)
        params: dict[str, str] | None = {"per_page": "100"}
        while url is not None:
            page, response = self._request("GET", url, None, params)
            if not isinstance(page, list):
                raise ApiError(f"GET {path}: expected a list from GitHub")
            items.extend(page)
            url, params = self._next_page(response, path), None  # the link carries them
        return items

    def send(self, method: str, path: str, body: dict[str, Any]) -> Any:
        return self._request(method, self._url(path), body, None)[0]

    def _url(self, path: str) -> str:
        return f"{self._api_url}{path}"

    def _next_page(self, response: httpx.Response, path: str) -> str | None:
        link = response.links.get("next", {}).get("url")
        if not link:
            return None
        # The token goes only where the API is: never follow a link to another host.
        if urlsplit(link)[:2] != self._origin:
            raise ApiError(f"GET {path}: GitHub's next page points to another host; stopped")
        return str(link)

    def _request(
        self, method: str, url: str, body: dict[str, Any] | None, params: dict[str, str] | None
    ) -> tuple[Any, httpx.Response]:
        shown = f"{method} {urlsplit(url).path}"
        backoff = self._policy.first_backoff
        for attempt in range(1, self._policy.attempts + 1):
            last = attempt == self._policy.attempts
            try:
                response = self._http.request(method, url, json=body, params=params)
            except httpx.TransportError as error:
                if last:
                    raise ApiError(
                        f"{shown}: {type(error).__name__}: no answer from GitHub"
                    ) from None
                self._sleep(backoff)
                backoff *= 2
                continue
            wait = self._rate_limit_wait(response)
            if wait is not None:
                if last or wait > self._policy.longest_wait:
                    raise ApiError(f"{shown}: rate limited by GitHub for {wait:.0f} more seconds")
                self._sleep(wait)
                continue
            if response.status_code in _RETRIED_STATUSES and not last:
                self._sleep(backoff)
                backoff *= 2
                continue
            return _decoded(response, shown, self._token_source), response
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds to wait before trying again, for a rate-limit answer (None: not one).

        GitHub answers a rate limit with 429 or 403: `Retry-After` when it says how long,
        otherwise `x-ratelimit-remaining: 0` and the reset time (epoch seconds).
        """
        if response.status_code not in (403, 429):
            return None
        retry_after = response.headers.get("retry-after")
        if retry_after is not None and retry_after.strip().isdigit():
            return float(retry_after)
        reset = response.headers.get("x-ratelimit-reset")
        if response.headers.get("x-ratelimit-remaining") == "0" and reset and reset.isdigit():
            return max(1.0, float(reset) - self._clock() + 1.0)
        # A secondary rate limit may come without either header: wait a minute, as GitHub asks.
        if response.status_code == 429 or "rate limit" in _message(response).lower():
            return 60.0
        return None


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason_phrase
    message = data.get("message") if isinstance(data, dict) else None
    return str(message)[:200] if message else response.reason_phrase


def _decoded(response: httpx.Response, shown: str, token_source: str) -> Any:
    status = response.status_code
    if status < 300:
        return response.json() if response.content else None
    message = _message(response)
    if status == 401:
        raise ApiError(f"{shown}: 401 {message}: GitHub rejected {token_source}")
    if status == 403:
        raise PermissionDenied(f"{shown}: 403 {message}")
    if status == 404:
        raise ApiError(
            f"{shown}: 404 {message} (a wrong --repo or --pr, or {token_source} cannot see "
            "the repository)"
        )
    if status == 422:
        raise ValidationFailed(f"{shown}: 422 {message}")
    raise ApiError(f"{shown}: {status} {message}")
