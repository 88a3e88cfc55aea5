"""One API session for a command: the extra checked, the token read, the client closed."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from cfglint.errors import UserError
from cfglint.review.event import ReviewInputs, read_token
from cfglint.review.extra import require_http_client

if TYPE_CHECKING:
    from cfglint.review.publish import PullRequestApi


@contextmanager
def api_session(args: argparse.Namespace, inputs: ReviewInputs) -> Iterator[PullRequestApi]:
    require_http_client()
    if inputs.repo is None or inputs.pull_request is None:
        raise UserError("which pull request? pass --repo OWNER/NAME and --pr N")
    token = read_token(args.token_env)
    from cfglint.review.github_api import GitHubClient
    from cfglint.review.publish import PullRequestApi

    client = GitHubClient(inputs.api_url, token, token_source=f"the token in ${args.token_env}")
    try:
        yield PullRequestApi(client, inputs.repo, inputs.pull_request)
    finally:
        client.close()
