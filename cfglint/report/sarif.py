"""`--output-format sarif`: SARIF 2.1.0 with rules, exact regions, related configs and fixes,
and the run's errors and warnings that are no finding as the invocation's notifications."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from cfglint import paths
from cfglint.report.common import (
    TOOL_NAME,
    TOOL_URL,
    TOOL_VERSION,
    absolute_path,
    applies_to_note,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.types import Fix, Notice, NoticeKind, Span, Violation

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
JsonObject = dict[str, object]


def render_sarif(violations: Sequence[Violation], context: ReportContext) -> str:
    ordered = sorted_violations(violations, context)
    codes = sorted({violation.code for violation in ordered})
    rule_index = {code: index for index, code in enumerate(codes)}
    root = _source_root(context)
    run: JsonObject = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": TOOL_VERSION,
                "informationUri": TOOL_URL,
                "rules": [_rule(code, context) for code in codes],
            }
        },
        # Our columns count characters (code points), not SARIF's default UTF-16 code units.
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}},
        "results": [
            _result(violation, rule_index[violation.code], context) for violation in ordered
        ],
        "invocations": [_invocation(context)],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _source_root(context: ReportContext) -> Path:
    """%SRCROOT%: the git work tree (GitHub resolves result paths against the repository
    root), else the folder cfglint ran in."""
    return absolute_path(context.source_root or context.cwd, context)


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _rule(code: str, context: ReportContext) -> JsonObject:
    info = context.rules.get(code)
    if info is None:
        return {"id": code}
    fixable = info.fix_applicability is not None
    summary = _sentence(info.summary)
    description = _sentence(info.description) if info.description else summary
    return {
        "id": code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": description},
        "help": {
            "text": f"{summary} {description} See {info.url}",
            "markdown": f"**{summary}** {description}\n\nSee [{code}]({info.url}).",
        },
        "helpUri": info.url,
        "properties": {"fixable": fixable},
    }


def _artifact(path: Path, context: ReportContext) -> JsonObject:
    absolute = absolute_path(path, context)
    try:
        relative = absolute.relative_to(_source_root(context))
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}


def _escape(text: str) -> str:
    """A literal backslash or square bracket in a SARIF message, escaped so that viewers do not
    take it for an embedded link (SARIF 2.1.0, 3.11.6)."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _message(violation: Violation, context: ReportContext) -> str:
    """The message; for a base-file finding, with links to the inheriting configs (GitHub code
    scanning shows a related location only when the message links to it as `[text](id)`)."""
    text = _escape(violation.message)
    if not is_base_finding(violation, context):
        return text
    root = _source_root(context)

    def link(number: int, config: Path) -> str:
        # `number` is the config's relatedLocations id.
        return f"[{_escape(paths.display_path(absolute_path(config, context), root))}]({number})"

    return f"{text} ({applies_to_note(violation, context, link)})"


def _region(span: Span) -> JsonObject:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _result(violation: Violation, index: int, context: ReportContext) -> JsonObject:
    location = {
        "physicalLocation": {
            "artifactLocation": _artifact(violation.path, context),
            "region": _region(violation.span),
        }
    }
    result: JsonObject = {
        "ruleId": violation.code,
        "ruleIndex": index,
        # SARIF's levels are error, warning, note and none.
        "level": "note" if violation.severity == "info" else violation.severity,
        "message": {"text": _message(violation, context)},
        "locations": [location],
    }
    if is_base_finding(violation, context):
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {"artifactLocation": _artifact(config, context)},
                "message": {"text": "a config that inherits this value"},
            }
            for number, config in enumerate(violation.configs, start=1)
        ]
    fix = violation.fix
    if fix is not None and fix.edits:
        result["fixes"] = [_fix(fix, context)]
    applied_with = None
    if fix is not None and fix.applied_with is not None:
        code, span = fix.applied_with
        where = _artifact(span.path, context)["uri"]
        applied_with = f"{code} at {where}:{span.line}:{span.column}"
    properties = {
        "target": violation.target,
        "key": violation.key,
        # Its fix is (part of) that result's: SARIF fixes of different results never overlap.
        "fixAppliedWith": applied_with,
    }
    result["properties"] = {name: value for name, value in properties.items() if value is not None}
    return result


def _invocation(context: ReportContext) -> JsonObject:
    """Whether the run did its job (no error or internal error: those make it exit 2), and each
    notice printed on stderr, as GitHub code scanning shows a tool's notifications."""
    return {
        "executionSuccessful": not any(notice.fails for notice in context.notices),
        "toolExecutionNotifications": [
            _notification(notice, context) for notice in context.notices
        ],
    }


def _notification(notice: Notice, context: ReportContext) -> JsonObject:
    notification: JsonObject = {
        "level": "warning" if notice.kind is NoticeKind.WARNING else "error",
        "message": {"text": _escape(notice.message)},
    }
    if notice.path is not None:
        location: JsonObject = {"artifactLocation": _artifact(notice.path, context)}
        if notice.line is not None:
            location["region"] = {"startLine": notice.line}
        notification["locations"] = [{"physicalLocation": location}]
    return notification


def _fix(fix: Fix, context: ReportContext) -> JsonObject:
    by_file: dict[Path, list[JsonObject]] = {}
    for edit in fix.edits:
        replacement = {
            "deletedRegion": _region(edit.span),
            # Written even when empty: an explicit "" marks a deletion.
            "insertedContent": {"text": edit.content},
        }
        by_file.setdefault(absolute_path(edit.span.path, context), []).append(replacement)
    changes = [
        {"artifactLocation": _artifact(path, context), "replacements": replacements}
        for path, replacements in by_file.items()
    ]
    return {
        "description": {"text": f"{fix.message} ({fix.applicability.value} fix)"},
        "artifactChanges": changes,
    }
