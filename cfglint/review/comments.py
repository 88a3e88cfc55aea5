"""Where each finding goes: an inline comment on a line of the diff, with a suggestion block
built from its safe fix when the fix's lines lie inside one hunk; otherwise the review body.

Fixes whose lines overlap in one file (two keys of one dict, a combined override) become one
suggestion, carried by the first of their comments, so that applying every suggestion gives
the file `cfglint fix` writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path

from cfglint.report.common import absolute_path, sorted_violations
from cfglint.report.context import ReportContext
from cfglint.report.source import LineReplacement, SourceFiles
from cfglint.report.suggestion import (
    is_expressible,
    own_edits,
    suggested_lines,
    without_final_newline,
)
from cfglint.review.diff import PullRequestDiff
from cfglint.review.findings import base_finding
from cfglint.review.model import (
    NOT_EXPRESSIBLE,
    NOT_IN_DIFF,
    OTHER_FILES,
    OUTSIDE_HUNK,
    UNSAFE_FIX,
    Finding,
    Inline,
)
from cfglint.types import Applicability, TextEdit, Violation


@dataclass(slots=True)
class _Cluster:
    """Suggestions of one file whose lines overlap: one combined suggestion."""

    path: Path
    first: int
    last: int
    members: list[tuple[int, list[TextEdit]]]  # (index into the findings, its edits)


def place_findings(
    violations: Sequence[Violation], diff: PullRequestDiff, repo: Path, context: ReportContext
) -> tuple[Finding, ...]:
    sources = SourceFiles()
    ordered = sorted_violations(violations, context)
    findings = [base_finding(violation, repo, context) for violation in ordered]
    clusters: list[_Cluster] = []
    # A fix whose edits another finding carries (`applied_with`) joins that finding's suggestion.
    deferred: list[tuple[int, tuple[str, Path, int, int]]] = []
    for index, violation in enumerate(ordered):
        if findings[index].body_reason is not None or violation.fix is None:
            continue
        carried_by = violation.fix.applied_with
        if carried_by is not None and not violation.fix.edits:
            code, span = carried_by
            deferred.append(
                (index, (code, absolute_path(span.path, context), span.line, span.column))
            )
            continue
        reason = _fix_reason(violation, context)
        replacement = suggested_lines(violation, context, sources) if reason is None else None
        if reason is None and replacement is None:
            reason = NOT_EXPRESSIBLE
        if replacement is None:
            findings[index] = replace(findings[index], fix_reason=reason)
            continue
        path = absolute_path(violation.path, context)
        _join(clusters, path, replacement, index, own_edits(violation, context))
    where = {
        (v.code, absolute_path(v.path, context), v.span.line, v.span.column): i
        for i, v in enumerate(ordered)
    }
    for index, owner in deferred:
        owner_index = where.get(owner)
        cluster = next(
            (c for c in clusters if any(member == owner_index for member, _ in c.members)), None
        )
        if cluster is None:
            findings[index] = replace(findings[index], fix_reason=NOT_EXPRESSIBLE)
            continue
        cluster.members = sorted([*cluster.members, (index, [])], key=lambda member: member[0])
    for cluster in clusters:
        _place_cluster(cluster, findings, diff, sources)
    return tuple(
        finding if finding.inline is not None or finding.body_reason else _own_lines(finding, diff)
        for finding in findings
    )


def _fix_reason(violation: Violation, context: ReportContext) -> str | None:
    """Why the fix cannot be a suggestion, before looking at lines (None: it may be one)."""
    fix = violation.fix
    if fix is None:
        return None
    if fix.applicability is not Applicability.SAFE:
        return UNSAFE_FIX
    if not fix.edits:
        return NOT_EXPRESSIBLE
    if len(own_edits(violation, context)) != len(fix.edits):
        return OTHER_FILES
    return None


def _join(
    clusters: list[_Cluster],
    path: Path,
    replacement: LineReplacement,
    index: int,
    edits: list[TextEdit],
) -> None:
    first, last = replacement.first, replacement.last
    members = [(index, edits)]
    # Merge with every cluster of the file these lines overlap (which may join two of them).
    for cluster in [c for c in clusters if c.path == path and c.first <= last and first <= c.last]:
        clusters.remove(cluster)
        first, last = min(first, cluster.first), max(last, cluster.last)
        members = cluster.members + members
    clusters.append(_Cluster(path, first, last, sorted(members, key=lambda member: member[0])))


def _place_cluster(
    cluster: _Cluster, findings: list[Finding], diff: PullRequestDiff, sources: SourceFiles
) -> None:
    edits = list(dict.fromkeys(edit for _, own in cluster.members for edit in own))
    replacement = None
    if not _overlapping(edits):
        replacement = sources.whole_line_replacement(
            cluster.path, edits, (cluster.first, cluster.last)
        )
    indexes = [index for index, _ in cluster.members]
    if replacement is None or not is_expressible(replacement):
        for index in indexes:
            findings[index] = replace(findings[index], fix_reason=NOT_EXPRESSIBLE)
        return
    path = findings[indexes[0]].path
    if diff.hunk_holding(path, replacement.first, replacement.last) is None:
        for index in indexes:
            findings[index] = replace(findings[index], fix_reason=OUTSIDE_HUNK)
        return
    start = replacement.first if replacement.first < replacement.last else None
    carrier = findings[indexes[0]]
    text = without_final_newline(replacement.text)
    findings[indexes[0]] = replace(carrier, inline=Inline(replacement.last, start, text))
    for index in indexes[1:]:
        findings[index] = replace(
            findings[index],
            inline=Inline(replacement.last, start),
            covered_by=carrier.fingerprint,
        )


def _overlapping(edits: list[TextEdit]) -> bool:
    """Two different edits touching the same text: never merged (as `cfglint fix` refuses)."""
    spans = sorted((e.span.line, e.span.column, e.span.end_line, e.span.end_column) for e in edits)
    return any(
        (later[0], later[1]) < (earlier[2], earlier[3]) for earlier, later in pairwise(spans)
    )


def _own_lines(finding: Finding, diff: PullRequestDiff) -> Finding:
    """A comment on the finding's own lines when the diff shows them, else the body."""
    if diff.hunk_holding(finding.path, finding.line, finding.end_line) is None:
        return replace(finding, body_reason=NOT_IN_DIFF)
    start = finding.line if finding.line < finding.end_line else None
    return replace(finding, inline=Inline(finding.end_line, start))
