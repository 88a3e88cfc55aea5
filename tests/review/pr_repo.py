"""A real git repository with a base and a head commit, and the bot run on it as GitHub Actions
would run it (environment variables, an event payload)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import EXAMPLES

from cfglint.cli import main

TOKEN = "ghs_cfglintTestTokenThatMustNeverBePrinted0123"
REPO = "octo/configs"
NUMBER = 7
GIT_ENV = {
    "GIT_AUTHOR_NAME": "cfglint tests",
    "GIT_AUTHOR_EMAIL": "tests@cfglint.invalid",
    "GIT_COMMITTER_NAME": "cfglint tests",
    "GIT_COMMITTER_EMAIL": "tests@cfglint.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True, timeout=300,
    )
    return completed.stdout


def commit(repo: Path, files: dict[str, str | None], message: str = "change") -> str:
    """Write (or delete, for None) the files and commit; the new commit's hash."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def new_repo(root: Path, files: dict[str, str]) -> tuple[Path, str]:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root, commit(root, files, "base")


def examples_files(*folders: str) -> dict[str, str]:
    """The examples tree's settings and the config folders named (relative to configs/)."""
    files = {"pyproject.toml": (EXAMPLES / "pyproject.toml").read_text(encoding="utf-8")}
    for folder in folders:
        for path in sorted((EXAMPLES / "configs" / folder).rglob("*.py")):
            files[path.relative_to(EXAMPLES).as_posix()] = path.read_text(encoding="utf-8")
    return files


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    step_summary: str


@dataclass
class PullRequest:
    """A pull request of REPO: its checkout, base and head, and the bot run on it."""

    repo: Path
    base: str
    head: str
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]
    api_url: str = "http://127.0.0.1:9"
    from_fork: bool = False

    def push(self, files: dict[str, str | None]) -> str:
        self.head = commit(self.repo, files, "push")
        return self.head

    def event(self) -> Path:
        head_repo = "fork/configs" if self.from_fork else REPO
        payload = {
            "pull_request": {
                "number": NUMBER,
                "base": {"sha": self.base, "repo": {"full_name": REPO}},
                "head": {"sha": self.head, "repo": {"full_name": head_repo}},
            }
        }
        path = self.repo.parent / "event.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        return path

    def review(
        self,
        *args: str,
        event_name: str = "pull_request",
        event: Path | None = None,
        token: str = TOKEN,
    ) -> Outcome:
        summary = self.repo.parent / "step-summary.md"
        summary.unlink(missing_ok=True)
        environment = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event or self.event()),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": self.api_url,
            "GITHUB_WORKSPACE": str(self.repo),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_TOKEN": token,
        }
        for name, value in environment.items():
            self.monkeypatch.setenv(name, value)
        self.monkeypatch.chdir(self.repo)
        self.capsys.readouterr()
        exit_code = main(["review", *args])
        captured = self.capsys.readouterr()
        text = summary.read_text(encoding="utf-8") if summary.exists() else ""
        # Whatever happened, the token is never shown.
        assert TOKEN not in captured.out + captured.err + text
        return Outcome(exit_code, captured.out, captured.err, text)


def copy_checkout(repo: Path, where: Path) -> Path:
    shutil.copytree(repo, where, ignore=shutil.ignore_patterns(".git"))
    return where
