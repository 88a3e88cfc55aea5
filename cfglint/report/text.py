"""The human format: `path:line:col: CODE [*] message`, notes, fix hints, a summary (ruff style)."""

from __future__ import annotations

from collections.abc import Sequence

from cfglint.report.common import (
    applies_to_note,
    display_path,
    fix_is_applicable,
    fix_is_hidden,
    is_base_finding,
    plural,
    sorted_violations,
)
from cfglint.report.context import ReportContext
from cfglint.report.styled import StyledLine, join_lines
from cfglint.types import Violation

FIX_OPTION = "[*] {count} fixable with the `--fix` option"
HIDDEN = "{hidden} can be enabled with the `--unsafe-fixes` option"


def render_text(violations: Sequence[Violation], context: ReportContext) -> str:
    lines: list[StyledLine] = []
    for violation in sorted_violations(violations, context):
        lines.extend(_violation_lines(violation, context))
    lines.extend([(line, "")] for line in summary_lines(violations, context))
    return join_lines(lines, context.color)


def _violation_lines(violation: Violation, context: ReportContext) -> list[StyledLine]:
    span = violation.span
    location = f"{display_path(span.path, context)}:{span.line}:{span.column}:"
    head: list[tuple[str, str]] = [(location, "bold"), (" ", ""), (violation.code, "bold red")]
    if fix_is_applicable(violation.fix, context):
        head.append((" [*]", "cyan"))
    # A message of several lines keeps `path:line:col:` lines parseable: the rest is indented.
    head.append((" " + violation.message.replace("\n", "\n  "), ""))
    if violation.target:
        head.append((f" [{violation.target}]", "magenta"))
    lines: list[StyledLine] = [head]
    if is_base_finding(violation, context):
        lines.append([(f"  = {applies_to_note(violation, context)}", "blue")])
    if context.show_fix_hints and violation.fix is not None:
        hint = f"  help: {violation.fix.message}"
        if fix_is_hidden(violation.fix, context):
            hint += " (unsafe fix: apply with `--fix --unsafe-fixes`)"
        lines.append([(hint, "cyan")])
    return lines


def summary_lines(violations: Sequence[Violation], context: ReportContext) -> list[str]:
    """`Fixed K errors.`, `Found N errors.` and what `--fix` can do, or `All checks passed!`
    when every config was checked."""
    lines: list[str] = []
    if context.fixed_count:
        lines.append(f"Fixed {plural(context.fixed_count, 'error')}.")
    if not violations:
        if context.complete:
            lines.append("All checks passed!")
        return lines
    warnings = sum(1 for violation in violations if violation.severity == "warning")
    infos = sum(1 for violation in violations if violation.severity == "info")
    errors = len(violations) - warnings - infos
    counted = [plural(errors, "error")] if errors else []
    if warnings:
        counted.append(plural(warnings, "warning"))
    if infos:
        counted.append(plural(infos, "note"))
    lines.append(f"Found {' and '.join(counted)}.")
    fixable = sum(1 for violation in violations if fix_is_applicable(violation.fix, context))
    hidden_count = sum(1 for violation in violations if fix_is_hidden(violation.fix, context))
    hidden = HIDDEN.format(hidden=plural(hidden_count, "hidden fix", "hidden fixes"))
    if fixable and hidden_count:
        lines.append(FIX_OPTION.format(count=fixable) + f" ({hidden}).")
    elif fixable:
        lines.append(FIX_OPTION.format(count=fixable) + ".")
    elif hidden_count:
        lines.append(f"No fixes available ({hidden}).")
    return lines
