"""Which changed files the review checks, and the seam for launches."""

from __future__ import annotations

from pathlib import Path

from review.pr_repo import commit, new_repo

from cfglint.review import scope
from cfglint.review.diff import pull_request_diff


def _changed(tmp_path: Path) -> tuple[Path, tuple[str, ...]]:
    repo, base = new_repo(tmp_path / "r", {"README.md": "x\n"})
    head = commit(
        repo,
        {
            "configs/a.py": "x = 1\n",
            "configs/b.yaml": "x: 1\n",
            "tools/train.py": "print()\n",
            "tools/dist_train.sh": "torchrun tools/train.py\n",
            "tools/util.py": "print()\n",
            "docs/notes.md": "y\n",
        },
    )
    diff = pull_request_diff(repo, base, head)
    pattern = scope.files_pattern(scope.DEFAULT_FILES)
    chosen = scope.files_to_check(repo, diff, pattern)
    return repo, tuple(path.relative_to(repo).as_posix() for path in chosen)


def test_changed_configs_launchers_and_the_entry_scripts_they_start(tmp_path: Path) -> None:
    """Not tools/util.py: no launcher starts it, so it is no launch's entry script."""
    assert _changed(tmp_path)[1] == (
        "configs/a.py",
        "configs/b.yaml",
        "tools/dist_train.sh",
        "tools/train.py",
    )
