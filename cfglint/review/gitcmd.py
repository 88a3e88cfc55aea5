"""Run git on the checkout: read-only commands, no pager, no external diff drivers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cfglint.errors import UserError

# A pull request's `.gitattributes` may name diff drivers or text conversions; they only run
# when the local git config defines them, but nothing of the checkout is ever run: turn them off.
_SAFE_OPTIONS = ("-c", "core.quotePath=false", "-c", "diff.noprefix=false", "--no-pager")


def git(repo: Path, *args: str) -> str:
    """stdout of `git ARGS` in `repo`; a UserError with git's own first line on failure."""
    if shutil.which("git") is None:
        raise UserError("`cfglint review` needs git on the PATH")
    completed = subprocess.run(
        ["git", *_SAFE_OPTIONS, *args],
        cwd=repo,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        check=False,
    )
    if completed.returncode != 0:
        first = (completed.stderr.strip().splitlines() or ["failed"])[0]
        raise UserError(f"git {args[0]}: {first}")
    return completed.stdout


def work_tree_root(start: Path) -> Path:
    try:
        return Path(git(start, "rev-parse", "--show-toplevel").strip())
    except UserError:
        raise UserError(
            f"{start}: not inside a git work tree (check out the pull request)"
        ) from None


def commit_of(repo: Path, revision: str) -> str:
    """The full hash of a commit; a missing one says how to fetch it (shallow clones)."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()
    except UserError:
        raise UserError(
            f"commit {revision!r} is not in the checkout: fetch it (actions/checkout with "
            "`fetch-depth: 0`, or `git fetch origin BASE`)"
        ) from None
