"""The human format: `path:line:col: CODE [*] message`, notes, fix hints, a summary (ruff style).

The target is said once: in the summary (`Found 9 errors on target t20-gcu.`) when every finding
is for one target, and after each finding (`[t20-gcu]`) only when the run mixes targets.
"""

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
    tagged = len(targets_of(violations)) > 1
    for violation in sorted_violations(violations, context):
        lines.extend(_violation_lines(violation, context, tagged=tagged))
    lines.extend([(line, "")] for line in summary_lines(violations, context))
    return join_lines(lines, context.color)


def targets_of(violations: Sequence[Violation]) -> list[str]:
    """The targets the findings are for (a config that could not be resolved has none)."""
    return sorted({violation.target for violation in violations if violation.target})


def _violation_lines(
    violation: Violation, context: ReportContext, *, tagged: bool
) -> list[StyledLine]:
    span = violation.span
    location = f"{display_path(span.path, context)}:{span.line}:{span.column}:"
    head: list[tuple[str, str]] = [(location, "bold"), (" ", ""), (violation.code, "bold red")]
    if fix_is_applicable(violation.fix, context):
        head.append((" [*]", "cyan"))
    # A message of several lines keeps `path:line:col:` lines parseable: the rest is indented.
    head.append((" " + violation.message.replace("\n", "\n  "), ""))
    if tagged and violation.target:
        head.append((f" [{violation.target}]", "magenta"))
    lines: list[StyledLine] = [head]
    if is_base_finding(violation, context):
        lines.append([(f"  = {applies_to_note(violation, context)}", "blue")])
    if not context.show_fix_hints:
        return lines
    if violation.fix is not None:
        hint = f"  help: {violation.fix.message}"
        if fix_is_hidden(violation.fix, context):
            hint += " (unsafe fix: apply with `--fix --unsafe-fixes`)"
        lines.append([(hint, "cyan")])
    else:
        # No fix: what to do instead is on the rule's page.
        lines.append([(f"  see: cfglint rule {violation.code}", "cyan")])
    return lines


def summary_lines(violations: Sequence[Violation], context: ReportContext) -> list[str]:
    """`Fixed K errors.`, `Found N errors on target T.` and what `--fix` can do, or `All checks
    passed!` when every config was checked; then why the exit code is 2, when it is."""
    lines: list[str] = []
    if context.fixed_count:
        lines.append(f"Fixed {plural(context.fixed_count, 'error')}.")
    if violations:
        lines.append(f"Found {_counted(violations)}{_on_targets(violations)}.")
        lines.extend(_fix_lines(violations, context))
    elif context.complete:
        lines.append("All checks passed!")
    lines.extend(exit_reason_lines(context))
    return lines


def exit_reason_lines(context: ReportContext) -> list[str]:
    if not context.exit_reasons:
        return []
    return [f"Exit code 2: {'; '.join(context.exit_reasons)}."]


def _counted(violations: Sequence[Violation]) -> str:
    warnings = sum(1 for violation in violations if violation.severity == "warning")
    infos = sum(1 for violation in violations if violation.severity == "info")
    errors = len(violations) - warnings - infos
    counted = [plural(errors, "error")] if errors else []
    if warnings:
        counted.append(plural(warnings, "warning"))
    if infos:
        counted.append(plural(infos, "note"))
    return " and ".join(counted)


def _on_targets(violations: Sequence[Violation]) -> str:
    targets = targets_of(violations)
    if not targets:
        return ""
    if len(targets) == 1:
        return f" on target {targets[0]}"
    return f" on targets {', '.join(targets[:-1])} and {targets[-1]}"


def _fix_lines(violations: Sequence[Violation], context: ReportContext) -> list[str]:
    fixable = sum(1 for violation in violations if fix_is_applicable(violation.fix, context))
    hidden_count = sum(1 for violation in violations if fix_is_hidden(violation.fix, context))
    hidden = HIDDEN.format(hidden=plural(hidden_count, "hidden fix", "hidden fixes"))
    if fixable and hidden_count:
        return [FIX_OPTION.format(count=fixable) + f" ({hidden})."]
    if fixable:
        return [FIX_OPTION.format(count=fixable) + "."]
    if hidden_count:
        return [f"No fixes available ({hidden})."]
    return []
