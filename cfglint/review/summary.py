"""The summary: the body of the bot's first review, edited in place on every later push.

It counts the findings, lists those that are not inline comments (with the configs they apply
to) and the fixes that need `cfglint fix`, and says which earlier findings are fixed. It stays
within GitHub's body size: a long list ends with how many it left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cfglint import __version__
from cfglint.review.markdown import MAX_BODY, code_span, configs_note, fix_command, rule_link
from cfglint.review.markers import SummaryState, summary_marker
from cfglint.review.model import Finding, Plan

DOCS_URL = "https://cfglint.readthedocs.io/en/latest/integrations/#review-bot-cfglint-review"
_ROOM_FOR_TAIL = 400  # the last lines always fit


def render_summary(plan: Plan, fixed: Mapping[str, str], *, marker: bool = True) -> str:
    """`fixed`: fingerprint -> label of the earlier findings that are gone."""
    state = SummaryState({f.fingerprint: f.label for f in plan.findings}, dict(fixed))
    head = [summary_marker(state)] if marker else []
    head += ["### cfglint", _headline(plan, fixed)]
    sections = [
        ("Not placed inline", [_outside(f) for f in plan.findings if f.inline is None]),
        ("Fixes to apply with `cfglint fix`", [_fix(f) for f in _fixes_left(plan.findings)]),
        ("Not checked", [f"- {problem}" for problem in plan.problems]),
        ("Fixed since the last review", [f"- ~~{code_span(label)}~~" for label in fixed.values()]),
    ]
    tail = [_checked(plan.checked), f"<sub>cfglint {__version__} · [review bot]({DOCS_URL})</sub>"]
    return _fit(head, sections, tail)


def _headline(plan: Plan, fixed: Mapping[str, str]) -> str:
    commit = code_span(plan.head_sha[:7])
    if not plan.findings:
        gone = f": all {len(fixed)} earlier findings are fixed" if fixed else ""
        problems = " (see below what could not be checked)" if plan.problems else ""
        return f"No findings at {commit}{gone}.{problems}"
    inline = [f for f in plan.findings if f.inline is not None]
    suggested = sum(1 for f in inline if f.inline is not None and f.inline.suggestion is not None)
    errors = len(plan.failing)
    warnings = len(plan.findings) - errors
    counts = _count(errors, "error") + (f" and {_count(warnings, 'warning')}" if warnings else "")
    return (
        f"**{counts}** at {commit} in the configs this pull request changes or that inherit a "
        f"changed file: {_count(len(inline), 'inline comment')} "
        f"({suggested} with a suggested fix), {len(plan.findings) - len(inline)} listed below."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _where(finding: Finding) -> str:
    return code_span(f"{finding.path}:{finding.line}")


def _outside(finding: Finding) -> str:
    target = f" [{finding.target}]" if finding.target else ""
    line = f"- **{rule_link(finding)}** {_where(finding)}: {finding.message}{target}"
    note = configs_note(finding)
    if note:
        line += f" ({note})"
    return f"{line}. _{finding.body_reason}_" if finding.body_reason else line


def _fixes_left(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.fix and f.fix_reason and f.covered_by is None]


def _fix(finding: Finding) -> str:
    return (
        f"- **{finding.code}** {_where(finding)}: {finding.fix} ({finding.fix_reason}): "
        f"{fix_command(finding)}"
    )


def _checked(configs: tuple[str, ...]) -> str:
    if not configs:
        return "No config was checked against a target."
    shown = ", ".join(code_span(config) for config in configs[:10])
    more = f" and {len(configs) - 10} more" if len(configs) > 10 else ""
    return f"Checked {_count(len(configs), 'config')}: {shown}{more}."


def _fit(head: list[str], sections: list[tuple[str, list[str]]], tail: list[str]) -> str:
    """Sections with as many items as fit in GitHub's body size, the rest counted."""
    parts = list(head)
    used = sum(len(part) + 2 for part in head + tail) + _ROOM_FOR_TAIL
    for title, items in sections:
        if not items:
            continue
        header = f"#### {title}"
        used += len(header) + 2
        shown = []
        for item in items:
            if used + len(item) + 1 > MAX_BODY:
                break
            shown.append(item)
            used += len(item) + 1
        left = len(items) - len(shown)
        if left:
            shown.append(f"- … and {left} more: run `cfglint check` on the configs to see them all")
        parts += [header, "\n".join(shown)]
    return "\n\n".join(parts + tail)
