"""`--statistics`: one line per code, most frequent first (ruff style); JSON for machines."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from cfglint.report.common import fix_is_applicable
from cfglint.report.context import ReportContext
from cfglint.types import Violation


def _rows(
    violations: Sequence[Violation], context: ReportContext
) -> tuple[list[tuple[str, int]], set[str]]:
    counts = Counter(violation.code for violation in violations)
    fixable = {
        violation.code for violation in violations if fix_is_applicable(violation.fix, context)
    }
    return sorted(counts.items(), key=lambda item: (-item[1], item[0])), fixable


def render_statistics(violations: Sequence[Violation], context: ReportContext) -> str:
    rows, fixable = _rows(violations, context)
    count_width = max((len(str(count)) for _, count in rows), default=0)
    code_width = max((len(code) for code, _ in rows), default=0)
    lines = []
    for code, count in rows:
        marker = "[*]" if code in fixable else "   "
        rule = context.rules.get(code)
        summary = rule.summary if rule else ""
        line = f"{count:>{count_width}}\t{code:<{code_width}}\t{marker} {summary}".rstrip()
        lines.append(line)
    fixable_count = sum(1 for violation in violations if fix_is_applicable(violation.fix, context))
    if fixable_count:
        lines.append(f"[*] {fixable_count} fixable with the `--fix` option.")
    return "".join(line + "\n" for line in lines)


def render_statistics_json(violations: Sequence[Violation], context: ReportContext) -> str:
    """ruff's `--statistics --output-format json`: a list of {code, name, count, fixable}."""
    rows, fixable = _rows(violations, context)
    items = []
    for code, count in rows:
        rule = context.rules.get(code)
        name = rule.name if rule else None
        items.append({"code": code, "name": name, "count": count, "fixable": code in fixable})
    return json.dumps(items, indent=2) + "\n"
