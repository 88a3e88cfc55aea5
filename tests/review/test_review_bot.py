"""`cfglint review` end to end: a real git repository with a base and a head commit, the bot run
as GitHub Actions runs it, and a fake GitHub REST server on 127.0.0.1 that checks every request
and answer against GitHub's OpenAPI description (conftest.py)."""

from __future__ import annotations

import difflib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from review.fake_github import BOT, Failure, FakeGitHub
from review.pr_repo import NUMBER, REPO, PullRequest, copy_checkout, examples_files, git, new_repo

from cfglint.cli import main
from cfglint.review.markers import fingerprint_in

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
RUNTIME = """env_cfg = dict(
    cudnn_benchmark=False,
    dist_cfg=dict(backend='gloo'),
)
model = dict(type='ToyClassifier')
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
"""
LEAF = "_base_ = ['../_base_/runtime.py']\n\ntrain_cfg = dict(max_iters=10)\n"
WRAPPER = """_base_ = ['../_base_/runtime.py']

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    device_ids=[0],
    output_device=0,
)
"""


def open_pull_request(
    tmp_path: Path,
    base: dict[str, str],
    head: dict[str, str | None],
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> PullRequest:
    repo, base_sha = new_repo(tmp_path / "checkout", base)
    pull = PullRequest(repo, base_sha, base_sha, monkeypatch, capsys, api_url=fake.url)
    pull.push(head)
    fake.pulls[NUMBER] = {"base": base_sha, "head": pull.head}
    return pull


def suggestion_of(body: str) -> str | None:
    match = re.search(r"(`{3,})suggestion\n(.*?)\1", body, re.DOTALL)
    if match is None:
        return None
    return match[2]  # the lines' new text, each line ending in a newline ("" deletes them)


def apply_suggestions(repo: Path, comments: list[dict[str, Any]]) -> str:
    """Each suggestion replaces its comment's lines, as GitHub's "Commit suggestions" does; the
    result as a unified diff that `git apply` takes."""
    patch = ""
    by_path: dict[str, list[dict[str, Any]]] = {}
    for comment in comments:
        if suggestion_of(comment["body"]) is not None:
            by_path.setdefault(comment["path"], []).append(comment)
    for path, posted in sorted(by_path.items()):
        old = (repo / path).read_text(encoding="utf-8").splitlines(keepends=True)
        new = list(old)
        for comment in sorted(posted, key=lambda c: c["line"], reverse=True):
            first = comment.get("start_line") or comment["line"]
            text = suggestion_of(comment["body"]) or ""
            new[first - 1 : comment["line"]] = text.splitlines(keepends=True)
        patch += "".join(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))
    return patch


def test_inline_comments_with_suggestions_that_give_what_cfglint_fix_writes(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = examples_files("_base_", "cuda")
    head = {k: v for k, v in examples_files("dinov3", "gcu_smoke").items() if k not in base}
    pull = open_pull_request(tmp_path, base, head, fake, monkeypatch, capsys)

    outcome = pull.review("--select", "CL201,CL202")

    assert outcome.exit_code == 1, outcome.stderr
    assert [seen.method for seen in fake.writes()] == ["POST"]
    [review] = fake.reviews
    assert review["commit_id"] == pull.head and review["state"] == "COMMENTED"
    placed = {(c["path"], c.get("start_line"), c["line"]) for c in fake.comments}
    assert placed == {
        ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py", 11, 15),
        ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", None, 9),
        ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", None, 10),
        ("configs/gcu_smoke/toy_gcu_smoke.py", None, 7),
    }
    for comment in fake.comments:
        assert re.search(r"\*\*\[CL20[12]\]\(https://\S+/rules/CL20[12]/\)\*\*", comment["body"])
        assert suggestion_of(comment["body"]) is not None
    # Applied with `git apply`, the suggestions give exactly what `cfglint fix` writes.
    suggested = copy_checkout(pull.repo, tmp_path / "suggested")
    git(suggested, "init", "-q")
    (tmp_path / "suggestions.patch").write_text(apply_suggestions(pull.repo, fake.comments))
    git(suggested, "apply", str(tmp_path / "suggestions.patch"))
    fixed = copy_checkout(pull.repo, tmp_path / "fixed")
    monkeypatch.chdir(fixed)
    assert main(["fix", "--select", "CL201,CL202", "configs"]) == 0
    for name in head:
        assert (suggested / name).read_bytes() == (fixed / name).read_bytes(), name
    assert "Found 4 errors." in outcome.stdout


def test_a_changed_base_file_is_reviewed_through_the_leaves_inheriting_it(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {
        "pyproject.toml": SETTINGS,
        "configs/_base_/runtime.py": RUNTIME,
        "configs/a/leaf_a.py": LEAF,
        "configs/b/leaf_b.py": LEAF,
    }
    broken = RUNTIME.replace("backend='gloo'", "backend='nccl'")
    pull = open_pull_request(
        tmp_path, base, {"configs/_base_/runtime.py": broken}, fake, monkeypatch, capsys
    )

    outcome = pull.review()

    assert outcome.exit_code == 1
    [comment] = fake.comments
    assert (comment["path"], comment["line"]) == ("configs/_base_/runtime.py", 3)
    assert "CL101" in comment["body"]
    assert "Applies to 2 configs: `configs/a/leaf_a.py`, `configs/b/leaf_b.py`" in comment["body"]
    assert suggestion_of(comment["body"]) == "    dist_cfg=dict(backend='gloo'),\n"
    summary = fake.reviews[0]["body"]
    assert "Checked 2 configs: `configs/a/leaf_a.py`, `configs/b/leaf_b.py`" in summary


def test_a_second_run_edits_the_summary_and_posts_no_duplicate(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    assert pull.review().exit_code == 1
    assert len(fake.reviews) == 1 and len(fake.comments) == 2  # CL201 (line 5), CL202 (line 6)

    # Push: CL202 fixed (GitHub marks its comment outdated), a new config with a new finding.
    fake.pulls[NUMBER]["head"] = pull.push(
        {
            "configs/a/wrapper.py": WRAPPER.replace("output_device=0", "output_device=None"),
            "configs/c/other.py": WRAPPER.replace("    output_device=0,\n", ""),
        }
    )
    fake.mark_outdated("configs/a/wrapper.py", 6)
    outcome = pull.review()

    assert outcome.exit_code == 1
    assert [seen.method for seen in fake.writes()] == ["POST", "PUT", "POST"]
    assert len(fake.reviews) == 2
    fingerprints = [fingerprint_in(c["body"]) for c in fake.bot_comments()]
    assert len(fingerprints) == 3 and len(set(fingerprints)) == 3  # only the new one was added
    assert fake.comments[-1]["path"] == "configs/c/other.py"
    summary = fake.reviews[0]["body"]
    assert "#### Fixed since the last review" in summary
    assert "~~`CL202 configs/a/wrapper.py:6`~~" in summary
    assert fake.reviews[1]["body"].startswith("<!-- cfglint-review:update -->")
    assert "1 earlier findings fixed" in outcome.stdout

    # The same head again: nothing to say, nothing sent.
    before = len(fake.writes())
    assert pull.review().exit_code == 1
    assert len(fake.writes()) == before

    # Everything fixed: the summary says so, once.
    fake.pulls[NUMBER]["head"] = pull.push(
        {
            "configs/a/wrapper.py": WRAPPER.replace("[0]", "None").replace("=0", "=None"),
            "configs/c/other.py": None,
        }
    )
    assert pull.review().exit_code == 0
    assert [seen.method for seen in fake.writes()[before:]] == ["PUT"]
    assert "No findings at" in fake.reviews[0]["body"]
    assert "all 3 earlier findings are fixed" in fake.reviews[0]["body"]
    before = len(fake.writes())
    assert pull.review().exit_code == 0
    assert len(fake.writes()) == before


def test_an_outdated_comment_is_posted_again_while_its_finding_remains(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    wrapper = WRAPPER.replace("    output_device=0,\n", "")
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": wrapper}, fake, monkeypatch, capsys
    )
    pull.review()
    fake.pulls[NUMBER]["head"] = pull.push(
        {"configs/a/wrapper.py": wrapper.replace("device_ids=[0],", "device_ids=[0],  # rank 0")}
    )
    fake.mark_outdated("configs/a/wrapper.py", 5)
    pull.review()
    assert [c.get("line") for c in fake.bot_comments()] == [None, 5]


def test_request_changes_is_dismissed_once_everything_is_fixed(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    pull.review("--event", "REQUEST_CHANGES")
    assert fake.reviews[0]["state"] == "CHANGES_REQUESTED"
    fake.pulls[NUMBER]["head"] = pull.push({"configs/a/wrapper.py": None})
    outcome = pull.review("--event", "REQUEST_CHANGES")
    assert outcome.exit_code == 0
    assert fake.reviews[0]["state"] == "DISMISSED"
    assert [seen.path.rsplit("/", 1)[-1] for seen in fake.writes()][-2:] == [
        str(fake.reviews[0]["id"]),
        "dismissals",
    ]


def test_a_read_only_token_falls_back_to_annotations_and_the_job_summary(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    pull.from_fork = True
    fake.writable = False  # a `pull_request` run from a fork gets a read-only token

    outcome = pull.review("--review-file", str(tmp_path / "review.json"))

    assert outcome.exit_code == 1
    assert fake.reviews == [] and [s.status for s in fake.writes()] == [403]
    assert "cannot write to octo/configs#7" in outcome.stderr
    annotations = [line for line in outcome.stdout.splitlines() if line.startswith("::")]
    assert annotations == [
        "::error file=configs/a/wrapper.py,line=5,col=16,endLine=5,endColumn=19,"
        "title=cfglint (CL201)::" + annotations[0].split("::", 2)[2],
        "::error file=configs/a/wrapper.py,line=6,col=19,endLine=6,endColumn=20,"
        "title=cfglint (CL202)::" + annotations[1].split("::", 2)[2],
    ]
    assert outcome.step_summary.startswith("### cfglint\n\n**2 errors**")
    assert "<!--" not in outcome.step_summary

    # The two-workflow pattern: a `workflow_run` job, with a token that can write, posts the
    # review JSON the `pull_request` job wrote.
    fake.writable = True
    run_event = tmp_path / "workflow_run.json"
    run_event.write_text(json.dumps({"workflow_run": {"head_sha": pull.head}}))
    posted = pull.review(
        "--post-from",
        str(tmp_path / "review.json"),
        event_name="workflow_run",
        event=run_event,
    )
    assert posted.exit_code == 0, posted.stderr
    assert len(fake.reviews) == 1 and len(fake.comments) == 2
    assert fake.reviews[0]["commit_id"] == pull.head


def test_a_review_file_for_another_commit_is_refused(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    pull.review("--dry-run", "--review-file", str(tmp_path / "review.json"))
    run_event = tmp_path / "workflow_run.json"
    run_event.write_text(json.dumps({"workflow_run": {"head_sha": pull.base}}))
    refused = pull.review(
        "--post-from", str(tmp_path / "review.json"), event_name="workflow_run", event=run_event
    )
    assert refused.exit_code == 2
    assert "but the run that wrote it checked" in refused.stderr
    # A file naming another pull request, whose head is not this commit, posts nothing.
    document = json.loads((tmp_path / "review.json").read_text())
    fake.pulls[8] = {"base": pull.base, "head": pull.base}
    document["pull_request"] = 8
    (tmp_path / "other.json").write_text(json.dumps(document))
    run_event.write_text(json.dumps({"workflow_run": {"head_sha": pull.head}}))
    skipped = pull.review(
        "--post-from", str(tmp_path / "other.json"), event_name="workflow_run", event=run_event
    )
    assert skipped.exit_code == 0 and "not posted" in skipped.stderr
    assert fake.writes() == []


def test_pagination_retries_and_rate_limits(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    for number in range(5):  # other reviewers' comments: three pages of two
        fake.add_comment(f"looks odd {number}")
    reset = str(int(time.time()) + 1)
    fake.failures = [
        Failure("GET", "/reviews", 429, {"Retry-After": "1"}, "secondary rate limit"),
        Failure(
            "GET",
            "/comments",
            403,
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
            "API rate limit exceeded",
        ),
        Failure("POST", "/reviews", 502, {}, "Server Error"),
    ]

    outcome = pull.review()

    assert outcome.exit_code == 1, outcome.stderr
    assert fake.failures == []
    comment_pages = [
        s.query.get("page", ["1"])[0]
        for s in fake.seen
        if s.path.endswith("/comments") and s.status == 200
    ]
    assert comment_pages == ["1", "2", "3"]
    statuses = [(s.method, s.path.rsplit("/", 1)[-1], s.status) for s in fake.seen]
    assert statuses == [
        ("GET", "reviews", 429),
        ("GET", "reviews", 200),
        ("GET", "comments", 403),
        ("GET", "comments", 200),
        ("GET", "comments", 200),
        ("GET", "comments", 200),
        ("POST", "reviews", 502),
        ("POST", "reviews", 200),
    ]
    assert len(fake.reviews) == 1 and len(fake.bot_comments()) == 2


@pytest.mark.parametrize(
    ("token", "number", "expected"),
    [
        ("ghs_wrong", NUMBER, "401 Bad credentials: GitHub rejected the token in $GITHUB_TOKEN"),
        (None, 99, "404 Not Found (a wrong --repo or --pr"),
    ],
)
def test_api_errors_are_one_line(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str | None,
    number: int,
    expected: str,
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    args = ("--pr", str(number))
    outcome = pull.review(*args) if token is None else pull.review(*args, token=token)
    assert outcome.exit_code == 2
    [line] = outcome.stderr.splitlines()
    assert line.startswith("cfglint: error: GET /repos/octo/configs/pulls/")
    assert expected in line
    assert fake.writes() == []


def test_comments_github_refuses_go_to_the_summary(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    fake.commentable = {}  # GitHub's diff differs from git's: no line is accepted
    assert pull.review().exit_code == 1
    assert [s.status for s in fake.writes()] == [422, 200]
    assert fake.comments == []
    assert fake.reviews[0]["body"].count("_GitHub refused it as an inline comment_") == 2


def test_more_findings_than_one_review_holds_go_to_the_summary(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    assert pull.review("--max-comments", "1").exit_code == 1
    assert len(fake.comments) == 1
    assert "_over the inline comments one review holds_" in fake.reviews[0]["body"]


def test_the_dry_run_on_the_examples_prints_the_review_it_would_post(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    openapi: Any,
) -> None:
    """The README's recipe: the examples without their T20 configs, then a commit adding them."""
    base = examples_files("_base_", "cuda")
    repo, base_sha = new_repo(tmp_path / "examples", base)
    pull = PullRequest(repo, base_sha, base_sha, monkeypatch, capsys)
    pull.push(examples_files("dinov3", "gcu_smoke"))
    for name in ("GITHUB_EVENT_PATH", "GITHUB_REPOSITORY", "GITHUB_TOKEN", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(repo)

    exit_code = main(["review", "--dry-run", "--base", "HEAD~1"])

    captured = capsys.readouterr()
    assert exit_code == 1
    assert captured.err.splitlines() == [
        "cfglint review: dry run: nothing posted.",
        "Found 7 errors.",
    ]
    document = json.loads(captured.out)
    review = document["review"]
    openapi.validate(
        openapi.request_schema("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"), review
    )
    assert review["commit_id"] == pull.head and review["event"] == "COMMENT"
    assert len(review["comments"]) == 5
    assert sum("```suggestion" in comment["body"] for comment in review["comments"]) == 4
    # The base file's findings are not in the diff: in the body, with the configs they apply to.
    assert "`configs/_base_/default_runtime.py:13`" in review["body"]
    assert document["repository"] is None and document["pull_request"] is None
    assert REPO not in captured.out and BOT not in captured.out


def test_an_internal_error_in_the_review_is_on_stderr_and_exits_2(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """cfglint's own failure on a changed config is told as `check` tells it, and the review
    never says every check passed."""
    import cfglint.loader

    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(tmp_path, base, {"configs/a/leaf.py": LEAF}, fake, monkeypatch, capsys)
    real = cfglint.loader.resolve_file

    def resolve_file(path: Path, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == "leaf.py":
            raise RuntimeError("a bug while resolving")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(cfglint.loader, "resolve_file", resolve_file)
    outcome = pull.review("--dry-run")
    assert outcome.exit_code == 2
    internal, summary, verdict = outcome.stderr.splitlines()
    assert internal.startswith(
        "cfglint: internal error in configs/a/leaf.py: RuntimeError: a bug while resolving "
        "(traceback written to "
    )
    assert (summary, verdict) == ("cfglint review: dry run: nothing posted.", "No findings.")
    assert fake.writes() == []


def test_outside_an_event_the_base_comes_from_the_api(
    tmp_path: Path,
    fake: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = {"pyproject.toml": SETTINGS, "configs/_base_/runtime.py": RUNTIME}
    pull = open_pull_request(
        tmp_path, base, {"configs/a/wrapper.py": WRAPPER}, fake, monkeypatch, capsys
    )
    no_event = tmp_path / "empty.json"
    no_event.write_text("{}")
    outcome = pull.review("--pr", str(NUMBER), event_name="push", event=no_event)
    assert outcome.exit_code == 1, outcome.stderr
    first = fake.seen[0]
    assert (first.method, first.path) == ("GET", f"/repos/{REPO}/pulls/{NUMBER}")
    assert len(fake.comments) == 2
