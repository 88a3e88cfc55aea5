"""What a pull request changed, from real `git diff` between the merge base and the head.

GitHub shows a pull request as the diff from the merge base of its base and head, with three
lines of context, and accepts review comments on the head's lines inside those hunks
(`side: RIGHT`): the same diff, computed here from the checkout.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from cfglint.review.gitcmd import commit_of, git

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--unified=3",
    "--find-renames",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


@dataclass(frozen=True, slots=True)
class Hunk:
    """Lines `first..last` (1-based, inclusive) of the head's file, shown in one hunk."""

    first: int
    last: int

    def holds(self, first: int, last: int) -> bool:
        return self.first <= first and last <= self.last


@dataclass(frozen=True, slots=True)
class ChangedFile:
    path: str  # at the head, relative to the repository root, `/` separators
    status: str  # git's letter: A(dded), M(odified), R(enamed), C(opied), T(ype change)
    hunks: tuple[Hunk, ...]
    added: frozenset[int]  # head lines the pull request adds or changes


@dataclass(frozen=True, slots=True)
class PullRequestDiff:
    merge_base: str
    head: str
    files: Mapping[str, ChangedFile]  # by path at the head; deleted files are left out

    def hunk_holding(self, path: str, first: int, last: int) -> Hunk | None:
        """The hunk of `path` holding all of lines `first..last`, if one does."""
        changed = self.files.get(path)
        if changed is None:
            return None
        return next((hunk for hunk in changed.hunks if hunk.holds(first, last)), None)


def pull_request_diff(repo: Path, base: str, head: str) -> PullRequestDiff:
    base_commit, head_commit = commit_of(repo, base), commit_of(repo, head)
    merge_base = git(repo, "merge-base", base_commit, head_commit).strip()
    listing = git(repo, "diff", "--name-status", "-z", "--find-renames", merge_base, head_commit)
    statuses = dict(_name_status(listing))
    patch = git(repo, "diff", *_DIFF_OPTIONS, merge_base, head_commit)
    hunks = dict(_hunks_by_path(patch))
    files = {
        path: ChangedFile(path, status, *hunks.get(path, ((), frozenset())))
        for path, status in statuses.items()
        if status != "D"
    }
    return PullRequestDiff(merge_base, head_commit, files)


def _name_status(output: str) -> Iterator[tuple[str, str]]:
    """(path at the head, status letter) from `--name-status -z` (exact names, no quoting)."""
    fields = output.split("\0")
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index][0]
        # Renames and copies name the old path, then the new one.
        width = 2 if status in "RC" else 1
        yield fields[index + width], status
        index += width + 1


def _hunks_by_path(patch: str) -> Iterator[tuple[str, tuple[tuple[Hunk, ...], frozenset[int]]]]:
    path: str | None = None
    hunks: list[Hunk] = []
    added: set[int] = set()
    line_number = 0
    in_header = False  # between `diff --git` and the first `@@`: a `+++ ` line is a path there
    for line in patch.split("\n"):
        if line.startswith("diff --git "):
            if path is not None:
                yield path, (tuple(hunks), frozenset(added))
            path, hunks, added, in_header = None, [], set(), True
        elif in_header and line.startswith("+++ "):
            path = _new_path(line[4:])
        elif (match := _HUNK.match(line)) is not None:
            in_header = False
            start, count = int(match[1]), int(match[2] if match[2] is not None else 1)
            line_number = start
            if count:
                hunks.append(Hunk(start, start + count - 1))
        elif line.startswith("+") and hunks:
            added.add(line_number)
            line_number += 1
        elif line.startswith(" ") and hunks:
            line_number += 1
    if path is not None:
        yield path, (tuple(hunks), frozenset(added))


def _new_path(text: str) -> str | None:
    """The path of a `+++ ` line: `b/NAME` (git adds a tab after a name with spaces), a
    C-quoted `"b/NAME"`, or /dev/null for a deleted file."""
    if text.startswith('"'):
        text = _unquote(text)
    elif text.endswith("\t"):
        text = text[:-1]
    return text[2:] if text.startswith("b/") else None


def _unquote(quoted: str) -> str:
    """git's C-style quoting: backslash escapes and octal bytes (UTF-8 underneath)."""
    escapes = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
    body = quoted[1 : quoted.rindex('"')] if quoted.count('"') > 1 else quoted[1:]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            following = body[index + 1]
            if following in "01234567":
                out.append(int(body[index + 1 : index + 4], 8))
                index += 4
                continue
            out.append(escapes.get(following, ord(following)))
            index += 2
            continue
        out.extend(char.encode("utf-8", errors="surrogateescape"))
        index += 1
    return out.decode("utf-8", errors="replace")
