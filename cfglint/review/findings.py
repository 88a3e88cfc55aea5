"""A violation as the review shows it: paths from the repository root, a stable fingerprint."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cfglint.report.common import fix_note
from cfglint.report.context import ReportContext
from cfglint.review.model import OUTSIDE_REPOSITORY, Finding
from cfglint.review.scope import is_inside
from cfglint.types import Violation


def fingerprint(violation: Violation, path: str) -> str:
    """The same finding on a later push has the same fingerprint, wherever its line moved."""
    text = "\0".join(
        (violation.code, path, violation.target or "", violation.key or "", violation.message)
    )
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()[:16]


def repo_path(path: Path, repo: Path) -> str:
    absolute = path if path.is_absolute() else repo / path
    try:
        return absolute.relative_to(repo).as_posix()
    except ValueError:
        return absolute.as_posix()


def base_finding(violation: Violation, repo: Path, context: ReportContext) -> Finding:
    """The finding without a place yet. A file outside the repository (a `_base_` reaching out
    of it, a `pkg::` base) is named, but its content never is: the rule's summary stands for
    the message, which quotes values from the file."""
    path = repo_path(violation.path, repo)
    rule = context.rules.get(violation.code)
    message = violation.message
    reason = None
    if not is_inside(repo / path, repo):
        message = rule.summary if rule is not None else violation.code
        reason = OUTSIDE_REPOSITORY
    configs = tuple(repo_path(config, repo) for config in violation.configs)
    return Finding(
        fingerprint=fingerprint(violation, path),
        code=violation.code,
        severity=violation.severity,
        message=message,
        url=rule.url if rule is not None else None,
        path=path,
        line=violation.span.line,
        end_line=last_line(violation),
        target=violation.target,
        configs=configs if configs != (path,) else (),
        fix=fix_note(violation.fix, context) if reason is None else None,
        body_reason=reason,
    )


def last_line(violation: Violation) -> int:
    """The last line the finding covers (an end at column 1 stops on the line before)."""
    span = violation.span
    if span.end_column == 1 and span.end_line > span.line:
        return span.end_line - 1
    return max(span.line, span.end_line)
