"""`--output-format sarif`: SARIF 2.1.0 with rules, exact regions, related configs and fixes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from cfglint.report.common import (
    TOOL_NAME,
    TOOL_URL,
    TOOL_VERSION,
    absolute_path,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.types import Fix, Span, Violation

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
JsonObject = dict[str, object]


def render_sarif(violations: Sequence[Violation], context: ReportContext) -> str:
    ordered = sorted_violations(violations, context)
    codes = sorted({violation.code for violation in ordered})
    rule_index = {code: index for index, code in enumerate(codes)}
    root = absolute_path(context.cwd, context)
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
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(code: str, context: ReportContext) -> JsonObject:
    info = context.rules.get(code)
    if info is None:
        return {"id": code}
    fixable = info.fix_applicability is not None
    return {
        "id": code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.summary},
        "help": {"text": f"{info.summary} See {info.url}"},
        "helpUri": info.url,
        "properties": {"fixable": fixable},
    }


def _artifact(path: Path, context: ReportContext) -> JsonObject:
    absolute = absolute_path(path, context)
    try:
        relative = absolute.relative_to(absolute_path(context.cwd, context))
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}


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
        "level": violation.severity,
        "message": {"text": violation.message},
        "locations": [location],
    }
    if is_base_finding(violation, context):
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {"artifactLocation": _artifact(config, context)},
                "message": {"text": "a config that inherits this value"},
            }
            for number, config in enumerate(violation.configs)
        ]
    if violation.fix is not None:
        result["fixes"] = [_fix(violation.fix, context)]
    properties = {"target": violation.target, "key": violation.key}
    result["properties"] = {name: value for name, value in properties.items() if value is not None}
    return result


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
