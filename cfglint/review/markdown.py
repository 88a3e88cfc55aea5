"""Markdown for the bot's comments: one inline comment per finding, with its suggestion."""

from __future__ import annotations

import re

from cfglint.review.markers import finding_marker
from cfglint.review.model import UNSAFE_FIX, Finding

# GitHub refuses a comment or review body longer than this (characters).
MAX_BODY = 65536
MAX_CONFIGS_SHOWN = 3


def rule_link(finding: Finding) -> str:
    return f"[{finding.code}]({finding.url})" if finding.url else finding.code


def code_span(text: str) -> str:
    """`text` as inline code, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def configs_note(finding: Finding) -> str | None:
    """`applies to 2 configs: a.py, b.py` for a finding in a file other configs inherit."""
    configs = finding.configs
    if not configs:
        return None
    shown = ", ".join(code_span(config) for config in configs[:MAX_CONFIGS_SHOWN])
    rest = len(configs) - MAX_CONFIGS_SHOWN
    more = f" and {rest} more" if rest > 0 else ""
    noun = "config" if len(configs) == 1 else "configs"
    return f"applies to {len(configs)} {noun}: {shown}{more}"


def fix_command(finding: Finding) -> str:
    unsafe = " --unsafe-fixes" if finding.fix_reason == UNSAFE_FIX else ""
    return code_span(f"cfglint fix{unsafe} {finding.path}")


def suggestion_block(text: str) -> str:
    """A ```suggestion block replacing the commented lines with `text` ("" deletes them)."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}suggestion\n{text}\n{fence}" if text else f"{fence}suggestion\n{fence}"


def comment_body(finding: Finding, carrier_code: str | None = None) -> str:
    """The inline comment; `carrier_code`: the code of the comment whose suggestion covers it."""
    body = _comment(finding, carrier_code, with_suggestion=True)
    if len(body) > MAX_BODY:
        body = _comment(finding, carrier_code, with_suggestion=False)
    return body[:MAX_BODY]


def _comment(finding: Finding, carrier_code: str | None, *, with_suggestion: bool) -> str:
    target = f" [{finding.target}]" if finding.target else ""
    parts = [f"**{rule_link(finding)}** {finding.message}{target}"]
    note = configs_note(finding)
    if note:
        parts.append(note[0].upper() + note[1:] + ".")
    inline = finding.inline
    suggestion = inline.suggestion if inline is not None and with_suggestion else None
    if suggestion is not None:
        parts.append(suggestion_block(suggestion))
    if finding.fix:
        parts.append(f"<sub>{_fix_line(finding, suggestion is not None, carrier_code)}</sub>")
    parts.append(finding_marker(finding.fingerprint))
    return "\n\n".join(parts)


def _fix_line(finding: Finding, suggested: bool, carrier_code: str | None) -> str:
    fix = finding.fix or ""
    if suggested:
        return f"{fix}: the suggestion is what `cfglint fix` writes"
    if finding.covered_by is not None:
        return f"{fix}: the suggestion on the {carrier_code or 'other'} comment here applies it"
    reason = finding.fix_reason or "it is too long for a comment"
    return f"{fix}: not offered as a suggestion ({reason}); run {fix_command(finding)}"
