"""What the bot must never do: show the token, need httpx for a dry run, read or quote files
outside the repository, or trust a review JSON written by a run on untrusted code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from review.pr_repo import TOKEN, commit, new_repo

from cfglint.cli import main
from cfglint.errors import UserError
from cfglint.review import extra
from cfglint.review.document import read_document
from cfglint.review.event import Token, read_token
from cfglint.review.github_api import ApiError, GitHubClient, RetryPolicy

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
WRAPPER = (
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n"
)


def test_the_token_never_shows() -> None:
    token = read_token("CFGLINT_TEST_TOKEN", {"CFGLINT_TEST_TOKEN": TOKEN})
    assert TOKEN not in repr(token) + str(token) + f"{token}"
    slept: list[float] = []
    client = GitHubClient(
        "http://127.0.0.1:9", token, policy=RetryPolicy(attempts=2), sleep=slept.append
    )
    assert TOKEN not in repr(client)
    with pytest.raises(ApiError) as raised:
        client.get("/repos/o/r/pulls/1")  # nothing listens there
    client.close()
    assert TOKEN not in str(raised.value) + repr(raised.value)
    assert str(raised.value) == "GET /repos/o/r/pulls/1: ConnectError: no answer from GitHub"
    assert slept == [1.0]


def test_a_missing_token_names_the_variable() -> None:
    with pytest.raises(UserError, match=r"no token in the environment variable MY_TOKEN"):
        read_token("MY_TOKEN", {})


def test_posting_without_httpx_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extra.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UserError, match=r"pip install 'cfglint\[review\]'"):
        extra.require_http_client()


def test_the_light_core_reviews_without_httpx(tmp_path: Path) -> None:
    """httpx blocked: the dry run works, posting says which extra to install."""
    repo, _ = new_repo(tmp_path / "r", {"pyproject.toml": SETTINGS})
    commit(repo, {"configs/a.py": WRAPPER})
    program = (
        "import sys; sys.modules['httpx'] = None; from cfglint.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["GITHUB_TOKEN"] = TOKEN

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", program, "review", "--base", "HEAD~1", *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            check=False, timeout=300,
        )

    dry = run("--dry-run")
    assert dry.returncode == 1, dry.stderr
    assert "CL201" in {finding["code"] for finding in json.loads(dry.stdout)["findings"]}
    posting = run("--repo", "o/r", "--pr", "1")
    assert posting.returncode == 2
    assert posting.stderr == (
        "cfglint: error: posting a review needs httpx, which is not installed: "
        "pip install 'cfglint[review]'\n"
    )


def test_files_outside_the_repository_are_never_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.py").write_text("env_cfg = dict(dist_cfg=dict(backend='SECRET-VALUE'))\n")
    (outside / "leak.py").write_text("launcher = 'SECRET-LINK'\n")
    repo, _ = new_repo(tmp_path / "r", {"pyproject.toml": SETTINGS})
    (repo / "configs").mkdir()
    (repo / "configs" / "linked.py").symlink_to(outside / "leak.py")
    commit(
        repo,
        {
            "configs/leaf.py": "_base_ = ['../../outside/base.py']\n"
            + WRAPPER.replace("[0]", "None"),
        },
    )
    monkeypatch.chdir(repo)
    for name in ("GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["review", "--dry-run", "--base", "HEAD~1"]) == 1
    out = capsys.readouterr().out
    assert "SECRET" not in out
    document = json.loads(out)
    assert document["checked"] == ["configs/leaf.py"]  # the symlink out of the repo is not read
    [finding] = document["findings"]
    assert finding["code"] == "CL101" and finding["path"] == (outside / "base.py").as_posix()
    assert finding["inline"] is None and "outside the repository" in finding["body_reason"]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"cfglint_review": 2}, "`cfglint_review` must be 1"),
        ({"commit_id": "HEAD"}, "`commit_id` is not a commit hash"),
        ({"pull_request": "7"}, "expected int"),
        ({"event": "APPROVE"}, "unknown event 'APPROVE'"),
        ({"findings": [{"path": "../../etc/passwd"}]}, "bad path"),
    ],
)
def test_a_review_file_is_checked_before_use(
    tmp_path: Path, change: dict[str, object], error: str
) -> None:
    finding = {
        "fingerprint": "0123456789abcdef",
        "code": "CL201",
        "severity": "error",
        "message": "m",
        "url": None,
        "path": "configs/a.py",
        "line": 1,
        "end_line": 1,
        "target": None,
        "configs": [],
        "fix": None,
        "inline": None,
        "body_reason": None,
        "fix_reason": None,
        "covered_by": None,
    }
    document = {
        "cfglint_review": 1,
        "repository": "o/r",
        "pull_request": 7,
        "commit_id": "a" * 40,
        "event": "COMMENT",
        "checked": [],
        "problems": [],
        "findings": [finding],
    }
    assert read_document(_write(tmp_path, document))[1] == 7
    if "findings" in change:
        change = {"findings": [{**finding, **change["findings"][0]}]}  # type: ignore[index]
    with pytest.raises(UserError, match=error):
        read_document(_write(tmp_path, {**document, **change}))


def _write(tmp_path: Path, document: dict[str, object]) -> Path:
    path = tmp_path / "review.json"
    path.write_text(json.dumps(document))
    return path


def test_token_is_a_value_not_a_string() -> None:
    assert not isinstance(Token("x"), str)
