"""`--output-format rdjson`: reviewdog's Diagnostic Format, with whole-line suggestions."""

from __future__ import annotations

import json
from collections.abc import Sequence

from cfglint.report.common import (
    TOOL_NAME,
    TOOL_URL,
    absolute_path,
    display_path,
    fix_is_applicable,
    fix_note,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.report.source import LineReplacement, SourceFiles
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
    replacement = _replacement(violation, context, sources)
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
                "text": _without_final_newline(replacement.text),
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


def _replacement(
    violation: Violation, context: ReportContext, sources: SourceFiles
) -> LineReplacement | None:
    """The fix's edits in this file as one replacement of whole lines, or None.

    GitHub suggestions replace whole lines, and reviewdog's GitHub reviewer posts one only
    when its lines equal the comment's: so the lines run from the first line the fix or the
    diagnostic touches to the last, and the diagnostic is put on the same lines. Edits that
    land in another file (a fix placed in the leaf configs) cannot be a suggestion here, and
    an unsafe fix is offered (one click applies it) only when --unsafe-fixes is given.
    """
    fix = violation.fix
    if fix is None or not fix_is_applicable(fix, context):
        return None
    path = absolute_path(violation.path, context)
    edits = [edit for edit in fix.edits if absolute_path(edit.span.path, context) == path]
    span = violation.span
    # A point (a finding about the file as a whole) does not pin the lines: the edits do.
    is_point = (span.line, span.column) == (span.end_line, span.end_column)
    covering = None if is_point else (span.line, span.end_line)
    replacement = sources.whole_line_replacement(path, edits, covering)
    if replacement is None or (replacement.text.strip("\r\n") == "" and replacement.text):
        # Lines that become blank cannot be written as a suggestion (empty means delete).
        return None
    return replacement


def _without_final_newline(text: str) -> str:
    """reviewdog ends the suggestion block with a newline itself."""
    for ending in ("\r\n", "\n"):
        if text.endswith(ending):
            return text[: -len(ending)]
    return text
