"""The review's values: each finding, where it goes, and why it goes there."""

from __future__ import annotations

from dataclasses import dataclass

# Why a finding is in the review body rather than on a line of the diff.
NOT_IN_DIFF = "not on a line of this pull request's diff"
OUTSIDE_REPOSITORY = "in a file outside the repository (its content is not shown)"
OVER_LIMIT = "over the inline comments one review holds"

# Why a fix is not a suggestion.
UNSAFE_FIX = "unsafe fix"
OTHER_FILES = "it edits other files"
OUTSIDE_HUNK = "its lines reach outside this pull request's diff"
NOT_EXPRESSIBLE = "it cannot be written as a suggestion"


@dataclass(frozen=True, slots=True)
class Inline:
    """An inline comment on head lines `start_line..line` (`start_line` None: one line)."""

    line: int
    start_line: int | None = None
    # The new text of those lines, without the final newline ("" deletes them); None: no
    # suggestion on this comment.
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    # Stable across pushes: code, file, target, key and message, never the line.
    fingerprint: str
    code: str
    severity: str  # error | warning | info
    message: str
    url: str | None  # the rule's page
    path: str  # relative to the repository root, `/` separators
    line: int
    end_line: int
    target: str | None
    configs: tuple[str, ...]  # the leaf configs it applies to, for a finding in a base file
    fix: str | None = None  # `fix (safe): ...`, as the other formats say it
    inline: Inline | None = None
    body_reason: str | None = None  # why it is not inline
    fix_reason: str | None = None  # why its fix is not a suggestion
    covered_by: str | None = None  # the finding whose suggestion fixes this one too

    @property
    def label(self) -> str:
        """One line naming it, as the summary lists it."""
        return f"{self.code} {self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Plan:
    """What the review says for one head commit, before looking at earlier reviews."""

    head_sha: str
    findings: tuple[Finding, ...]
    checked: tuple[str, ...]  # the configs checked
    problems: tuple[str, ...] = ()  # one-line errors that are no finding (a config without target)

    @property
    def failing(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.severity == "error")
