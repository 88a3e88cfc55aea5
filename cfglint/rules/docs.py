"""A rule's documentation page, rendered from the rule itself (docs/rules/ and `cfglint rule`).

`python -m cfglint.rules.docs docs/rules` rewrites the pages; a test keeps them in sync.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cfglint.codes import CODES
from cfglint.rules import ALL_RULES
from cfglint.rules.base import Example, Rule

_SCOPES = {
    "policy": "on the targets whose file configures it",
    "every-target": "on every target",
    "launch": "on a launch's entry script",
    "loader": "when the config is loaded",
}
_FIXES = {
    "target": "as the target file says",
    "safe": "safe",
    "unsafe": "unsafe",
    "none": "none",
}


def _example_block(example: Example) -> str:
    if example.entry is None:
        block = f"Target `{example.target}`:\n\n```python\n{example.config.rstrip()}\n```\n"
    else:
        command = " ".join(("python entry.py config.py", *example.arguments))
        block = (
            f"Target `{example.target}`, launched as `{command}`:\n\n"
            f"```python\n# config.py\n{example.config.rstrip()}\n```\n\n"
            f"```python\n# entry.py\n{example.entry.rstrip()}\n```\n"
        )
    if example.message is not None:
        block += f"\nReported as:\n\n```\n{example.message}\n```\n"
    if example.fixed is not None:
        block += f"\n`cfglint fix` writes:\n\n```python\n{example.fixed.rstrip()}\n```\n"
    return block


def render_rule(rule: Rule) -> str:
    entry = CODES[rule.code]
    parts = [
        f"# {rule.code} `{rule.name}`\n",
        f"{rule.summary[0].upper()}{rule.summary[1:]}.\n",
        f"Severity: {entry.severity}. Runs: {_SCOPES[entry.scope]}. Fix: {_FIXES[entry.fix]}.\n",
        f"## What it checks\n\n{rule.what}\n",
        f"## Why it breaks training\n\n{rule.why}\n",
        f"## Fix\n\n{rule.fix_doc}\n",
    ]
    if rule.invalid:
        parts.append("## Flagged\n\n" + "\n".join(_example_block(e) for e in rule.invalid))
    if rule.valid:
        parts.append("## Not flagged\n\n" + "\n".join(_example_block(e) for e in rule.valid))
    return "\n".join(parts)


def render_index() -> str:
    lines = [
        "# Rules\n",
        "The codes table (`cfglint/codes.py`): every code, its severity, and its fix.\n",
        "| code | name | summary | severity | fix |",
        "|---|---|---|---|---|",
    ]
    for rule in ALL_RULES:
        entry = CODES[rule.code]
        lines.append(
            f"| [{rule.code}]({rule.code}.md) | `{rule.name}` | {rule.summary} | "
            f"{entry.severity} | {_FIXES[entry.fix]} |"
        )
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    result = {f"{rule.code}.md": render_rule(rule) for rule in ALL_RULES}
    result["index.md"] = render_index()
    return result


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path("docs/rules")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
