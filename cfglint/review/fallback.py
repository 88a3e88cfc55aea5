"""When the token cannot write (a `pull_request` run from a fork gets a read-only token), the
findings still reach the pull request: workflow annotations (`--output-format github`) on the
changed files, and the summary in the job summary (`GITHUB_STEP_SUMMARY`, Markdown)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from cfglint.cli.notices import print_notices
from cfglint.report.context import ReportContext
from cfglint.report.github import render_github
from cfglint.review.model import Plan
from cfglint.review.summary import render_summary
from cfglint.types import Notice, Violation


def annotate(violations: Sequence[Violation], context: ReportContext) -> None:
    sys.stdout.write(render_github(violations, context))


def write_step_summary(path: Path | None, plan: Plan) -> None:
    """Appended, as GitHub expects of every step writing to the job summary."""
    if path is None:
        return
    try:
        with path.open("a", encoding="utf-8") as summary:
            summary.write(render_summary(plan, {}, marker=False) + "\n")
    except OSError as error:
        print_notices([Notice.warning(f"cannot write the job summary {path}: {error}", path)])
