"""The review's inputs: from GitHub Actions' environment, or from flags outside it.

In Actions everything comes from the environment: `GITHUB_EVENT_PATH` (the event payload: the
pull request's number, base and head), `GITHUB_REPOSITORY`, `GITHUB_API_URL` (GitHub Enterprise
sets its own). A flag given on the command line wins over the environment.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfglint.errors import UserError
from cfglint.files import read_text_capped

DEFAULT_API_URL = "https://api.github.com"
PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})


@dataclass(frozen=True, slots=True)
class ReviewInputs:
    repo: str | None  # owner/name
    pull_request: int | None
    base: str | None  # a revision; None: ask the API (or fail outside Actions)
    head: str  # a revision
    api_url: str
    event_name: str | None
    # The pull request comes from a fork: on `pull_request` its token is read-only.
    from_fork: bool = False
    # `workflow_run`: the head commit of the run that produced the review file.
    run_head_sha: str | None = None
    step_summary: Path | None = None
    in_actions: bool = False


@dataclass(frozen=True, slots=True)
class Flags:
    repo: str | None = None
    pull_request: int | None = None
    base: str | None = None
    head: str | None = None
    api_url: str | None = None


def review_inputs(flags: Flags, environ: Mapping[str, str]) -> ReviewInputs:
    payload = _payload(environ.get("GITHUB_EVENT_PATH"))
    pull = payload.get("pull_request") if isinstance(payload.get("pull_request"), dict) else None
    run = payload.get("workflow_run") if isinstance(payload.get("workflow_run"), dict) else None
    repo = flags.repo or environ.get("GITHUB_REPOSITORY") or None
    if repo is not None and (repo.count("/") != 1 or not all(repo.split("/"))):
        raise UserError(f"--repo {repo!r}: expected OWNER/NAME")
    summary = environ.get("GITHUB_STEP_SUMMARY")
    return ReviewInputs(
        repo=repo,
        pull_request=flags.pull_request or _int(pull, "number"),
        base=flags.base or _sha(pull, "base"),
        head=flags.head or _sha(pull, "head") or "HEAD",
        api_url=(flags.api_url or environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        event_name=environ.get("GITHUB_EVENT_NAME") or None,
        from_fork=pull is not None and _is_fork(pull),
        run_head_sha=str(run["head_sha"]) if run and run.get("head_sha") else None,
        step_summary=Path(summary) if summary else None,
        in_actions=environ.get("GITHUB_ACTIONS") == "true",
    )


# GitHub's event payloads are tens of KB; past this the file is not an event.
MAX_EVENT_BYTES = 16 * 1024 * 1024


def _payload(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        loaded = json.loads(read_text_capped(Path(path), MAX_EVENT_BYTES))
    except (OSError, ValueError, RecursionError) as error:
        raise UserError(
            f"cannot read the event payload GITHUB_EVENT_PATH={path}: {error}"
        ) from None
    return loaded if isinstance(loaded, dict) else {}


def _int(pull: dict[str, Any] | None, key: str) -> int | None:
    value = pull.get(key) if pull else None
    return value if isinstance(value, int) else None


def _sha(pull: dict[str, Any] | None, side: str) -> str | None:
    ref = pull.get(side) if pull else None
    sha = ref.get("sha") if isinstance(ref, dict) else None
    return sha if isinstance(sha, str) and sha else None


def _is_fork(pull: dict[str, Any]) -> bool:
    def full_name(side: str) -> object:
        ref = pull.get(side)
        repo = ref.get("repo") if isinstance(ref, dict) else None
        return repo.get("full_name") if isinstance(repo, dict) else None

    # A deleted fork leaves `head.repo` null: still not this repository.
    return full_name("head") != full_name("base")


class Token:
    """The API token: never shown, whatever prints it (repr, str, f-strings, tracebacks)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Token(***)"

    __str__ = __repr__


def read_token(variable: str, environ: Mapping[str, str] | None = None) -> Token:
    value = (os.environ if environ is None else environ).get(variable, "").strip()
    if not value:
        raise UserError(
            f"no token in the environment variable {variable} (set it, e.g. "
            f"`{variable}: ${{{{ secrets.GITHUB_TOKEN }}}}`, or name another with --token-env)"
        )
    return Token(value)
