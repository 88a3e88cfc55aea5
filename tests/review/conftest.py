"""Fixtures: GitHub's OpenAPI description, the fake GitHub server, pull-request repositories."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from review.fake_github import FakeGitHub
from review.openapi import GitHubOpenApi, github_openapi
from review.pr_repo import TOKEN


@pytest.fixture(scope="session")
def openapi() -> GitHubOpenApi:
    return github_openapi()


@pytest.fixture
def fake(openapi: GitHubOpenApi) -> Iterator[FakeGitHub]:
    with FakeGitHub(openapi, TOKEN) as server:
        yield server
    # Every request the bot sent and every answer the fake gave matched GitHub's description.
    assert server.problems == []
