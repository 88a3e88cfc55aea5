"""What the pull request changed, read from real `git diff` output."""

from __future__ import annotations

from pathlib import Path

import pytest
from review.pr_repo import commit, git, new_repo

from cfglint.errors import UserError
from cfglint.review.diff import Hunk, pull_request_diff

LINES = "".join(f"line{number}\n" for number in range(1, 21))


def test_hunks_added_lines_and_odd_names(tmp_path: Path) -> None:
    odd = 'configs/a "quoted"\tname.py'
    repo, base = new_repo(
        tmp_path / "r",
        {"configs/long.py": LINES, "configs/gone.py": "x = 1\n", "configs/old.py": LINES},
    )
    head = commit(
        repo,
        {
            "configs/long.py": LINES.replace("line10\n", "changed\n"),
            "configs/with space.py": "a = 1\n",
            "configs/配置.py": "b = 2\n",
            odd: "c = 3\n",
            "configs/gone.py": None,
            "configs/old.py": None,
            "configs/renamed.py": LINES.replace("line20\n", "line20\nline21\n"),
        },
    )
    diff = pull_request_diff(repo, base, head)
    assert set(diff.files) == {
        "configs/long.py",
        "configs/with space.py",
        "configs/配置.py",
        odd,
        "configs/renamed.py",
    }
    long = diff.files["configs/long.py"]
    assert (long.status, long.hunks, long.added) == ("M", (Hunk(7, 13),), frozenset({10}))
    renamed = diff.files["configs/renamed.py"]
    assert (renamed.status, renamed.hunks, renamed.added) == ("R", (Hunk(18, 21),), {21})
    for name in ("configs/with space.py", "configs/配置.py", odd):
        assert diff.files[name].hunks == (Hunk(1, 1),) and diff.files[name].added == {1}
    assert diff.hunk_holding("configs/long.py", 7, 13) == Hunk(7, 13)
    assert diff.hunk_holding("configs/long.py", 6, 7) is None
    assert diff.merge_base == base and diff.head == head


def test_the_diff_starts_at_the_merge_base(tmp_path: Path) -> None:
    repo, _ = new_repo(tmp_path / "r", {"configs/a.py": LINES})
    git(repo, "checkout", "-q", "-b", "feature")
    head = commit(repo, {"configs/b.py": "x = 1\n"})
    git(repo, "checkout", "-q", "main")
    moved_base = commit(repo, {"configs/a.py": LINES + "more\n"})
    diff = pull_request_diff(repo, moved_base, head)
    assert set(diff.files) == {"configs/b.py"}  # the base branch's own change is not in it


def test_a_commit_missing_from_a_shallow_clone_says_how_to_fetch_it(tmp_path: Path) -> None:
    repo, base = new_repo(tmp_path / "r", {"configs/a.py": LINES})
    with pytest.raises(UserError, match="fetch-depth: 0"):
        pull_request_diff(repo, "1" * 40, base)
