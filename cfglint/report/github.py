"""`--output-format github`: GitHub Actions workflow commands, one annotation per violation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from cfglint.report.common import (
    absolute_path,
    applies_to_note,
    display_path,
    fix_note,
    is_base_finding,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.types import Violation


def escape_data(text: str) -> str:
    """The message part, escaped the way GitHub's toolkit does (`%` first)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A `key=value` property: the data escapes plus `:` and `,`, which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(violations: Sequence[Violation], context: ReportContext) -> str:
    if context.annotation_root is not None:
        # GitHub reads `file=` relative to the checkout, whatever folder cfglint ran in: show
        # every path from there (absolute first, against the folder cfglint ran in).
        violations = [_absolute(violation, context) for violation in violations]
        context = replace(context, cwd=context.annotation_root)
    lines = [
        _annotation(violation, context) for violation in sorted_violations(violations, context)
    ]
    return "".join(line + "\n" for line in lines)


def _absolute(violation: Violation, context: ReportContext) -> Violation:
    span = violation.span._replace(path=absolute_path(violation.path, context))
    configs = tuple(absolute_path(config, context) for config in violation.configs)
    return replace(violation, span=span, configs=configs)


def _annotation(violation: Violation, context: ReportContext) -> str:
    span = violation.span
    properties = [("file", display_path(span.path, context)), ("line", str(span.line))]
    one_line = span.line == span.end_line
    if one_line:
        properties.append(("col", str(span.column)))
    properties.append(("endLine", str(span.end_line)))
    if one_line:
        properties.append(("endColumn", str(span.end_column)))
    properties.append(("title", f"cfglint ({violation.code})"))
    joined = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    command = {"warning": "warning", "info": "notice"}.get(violation.severity, "error")
    return f"::{command} {joined}::{escape_data(_message(violation, context))}"


def _message(violation: Violation, context: ReportContext) -> str:
    # Annotations show multi-line messages: the target and the configs go on their own lines.
    lines = [violation.message]
    if violation.target:
        lines.append(f"target: {violation.target}")
    if is_base_finding(violation, context):
        lines.append(applies_to_note(violation, context))
    note = fix_note(violation.fix, context)
    if note is not None:
        lines.append(note)
    return "\n".join(lines)
