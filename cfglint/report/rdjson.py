"""`--output-format rdjson`: reviewdog's Diagnostic Format, with whole-line suggestions."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cfglint.report.common import (
    TOOL_NAME,
    TOOL_URL,
    absolute_path,
    display_path,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.report.source import SourceFiles
from cfglint.types import Violation

JsonObject = dict[str, object]


def render_rdjson(violations: Sequence[Violation], context: ReportContext) -> str:
    sources = SourceFiles()
    diagnostics = [
        _diagnostic(violation, context, sources)
        for violation in sorted_violations(violations, context)
    ]
    result = {
        "source": {"name": TOOL_NAME, "url": TOOL_URL},
        "severity": "ERROR",
        "diagnostics": diagnostics,
    }
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def _position(line: int, column: int) -> JsonObject:
    return {"line": line, "column": column}


def _diagnostic(violation: Violation, context: ReportContext, sources: SourceFiles) -> JsonObject:
    span = violation.span
    path = absolute_path(span.path, context)
    start = sources.byte_column(path, span.line, span.column)
    end = sources.byte_column(path, span.end_line, span.end_column)
    diagnostic: JsonObject = {
        "message": violation.message,
        "location": {
            "path": display_path(span.path, context),
            "range": {"start": _position(span.line, start), "end": _position(span.end_line, end)},
        },
        "severity": violation.severity.upper(),
        "code": _code(violation, context),
    }
    suggestion = _suggestion(violation, context, sources)
    if suggestion is not None:
        diagnostic["suggestions"] = [suggestion]
    if is_base_finding(violation, context):
        diagnostic["related_locations"] = [
            {
                "message": "a config that inherits this value",
                "location": {"path": display_path(config, context)},
            }
            for config in violation.configs
        ]
    return diagnostic


def _code(violation: Violation, context: ReportContext) -> JsonObject:
    rule = context.rules.get(violation.code)
    return {"value": violation.code, "url": rule.url} if rule else {"value": violation.code}


def _suggestion(
    violation: Violation, context: ReportContext, sources: SourceFiles
) -> JsonObject | None:
    """The fix's edits in this file as one whole-line replacement.

    reviewdog's GitHub reviewer posts a suggestion only when its range equals the comment's
    lines, and GitHub suggestions replace whole lines: so the range runs from column 1 of the
    first line touched to column 1 of the line after the last one. Edits that land in another
    file (a fix placed in the leaf configs) cannot be a suggestion on this diagnostic.
    """
    if violation.fix is None:
        return None
    path = absolute_path(violation.path, context)
    edits = [edit for edit in violation.fix.edits if absolute_path(edit.span.path, context) == path]
    replacement = sources.whole_line_replacement(path, edits)
    if replacement is None:
        return None
    return {
        "range": {
            "start": _position(replacement.first, 1),
            "end": _position(replacement.last + 1, 1),
        },
        "text": replacement.text,
    }
