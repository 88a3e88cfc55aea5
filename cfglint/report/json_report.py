"""`--output-format json`: ruff's JSON fields, plus target, configs and key."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cfglint.report.common import absolute_path, sorted_violations
from cfglint.report.context import ReportContext
from cfglint.types import Fix, Violation

JsonObject = dict[str, object]


def render_json(violations: Sequence[Violation], context: ReportContext) -> str:
    items = [_violation(violation, context) for violation in sorted_violations(violations, context)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def _location(line: int, column: int) -> JsonObject:
    return {"row": line, "column": column}


def _violation(violation: Violation, context: ReportContext) -> JsonObject:
    span = violation.span
    rule = context.rules.get(violation.code)
    return {
        "code": violation.code,
        "filename": str(absolute_path(span.path, context)),
        "location": _location(span.line, span.column),
        "end_location": _location(span.end_line, span.end_column),
        "message": violation.message,
        "fix": _fix(violation.fix, context),
        "url": rule.url if rule else None,
        "noqa_row": span.line,
        "severity": violation.severity,
        "target": violation.target,
        "configs": [str(absolute_path(config, context)) for config in violation.configs],
        "key": violation.key,
    }


def _fix(fix: Fix | None, context: ReportContext) -> JsonObject | None:
    if fix is None:
        return None
    edits = [
        {
            "content": edit.content,
            # ruff's edits carry no file name; ours may land in another file (a leaf config).
            "filename": str(absolute_path(edit.span.path, context)),
            "location": _location(edit.span.line, edit.span.column),
            "end_location": _location(edit.span.end_line, edit.span.end_column),
        }
        for edit in fix.edits
    ]
    fields: JsonObject = {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": edits,
    }
    if fix.applied_with is not None:
        code, span = fix.applied_with
        fields["applied_with"] = {
            "code": code,
            "filename": str(absolute_path(span.path, context)),
            "location": _location(span.line, span.column),
        }
    return fields
