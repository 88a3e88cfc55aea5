"""`--output-format rdjson`: reviewdog's Diagnostic Format, with whole-line suggestions."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cfglint.report.common import (
    TOOL_NAME,
    TOOL_URL,
    absolute_path,
    display_path,
    fix_note,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.report.source import SourceFiles
from cfglint.report.suggestion import suggested_lines, without_final_newline
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


def _whole_lines(first: int, last: int) -> JsonObject:
    """A range of whole lines: positions without columns (reviewdog's line-based form)."""
    return {"start": {"line": first}, "end": {"line": last}}


def _diagnostic(violation: Violation, context: ReportContext, sources: SourceFiles) -> JsonObject:
    span = violation.span
    path = absolute_path(span.path, context)
    start = sources.byte_column(path, span.line, span.column)
    end = sources.byte_column(path, span.end_line, span.end_column)
    location_range: JsonObject = {
        "start": _position(span.line, start),
        "end": _position(span.end_line, end),
    }
    replacement = suggested_lines(violation, context, sources)
    if replacement is not None and (span.line, span.end_line) != (
        replacement.first,
        replacement.last,
    ):
        # reviewdog posts a suggestion only on a comment over exactly the suggestion's lines.
        location_range = _whole_lines(replacement.first, replacement.last)
    message = violation.message
    note = fix_note(violation.fix, context)
    if note is not None:
        message += "\n" + note
    diagnostic: JsonObject = {
        "message": message,
        "location": {"path": display_path(span.path, context), "range": location_range},
        "severity": violation.severity.upper(),
        "code": _code(violation, context),
    }
    if replacement is not None:
        diagnostic["suggestions"] = [
            {
                "range": _whole_lines(replacement.first, replacement.last),
                "text": without_final_newline(replacement.text),
            }
        ]
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
