"""A rule's documentation page, rendered from the rule itself (docs/rules/ and `cfglint rule`).

The page is laid out as ruff's are: what the rule checks, why it breaks training, each flagged
example with what `cfglint check` reports for it and what to use instead, the examples that pass,
the fix and its safety. `python -m cfglint.rules.docs docs/rules` rewrites the pages; a test keeps
them in sync, and tests/rules runs every example's command and compares what it prints.
"""

from __future__ import annotations

import functools
import shlex
import sys
from pathlib import Path

from cfglint.codes import CODES
from cfglint.rules import ALL_RULES
from cfglint.rules.base import Example, Rule
from cfglint.targets import TargetRegistry

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


@functools.cache
def _shipped() -> TargetRegistry:
    return TargetRegistry()


def check_arguments(example: Example) -> list[str]:
    """The `cfglint check` arguments that report the example, run in the folder holding its
    `config.py` (and `entry.py`)."""
    words = ["check", "--target", example.target]
    if example.entry is not None:
        words += ["--entry", "entry.py"]
        if example.arguments:
            words.append("--entry-args=" + shlex.join(example.arguments))
    return [*words, "config.py"]


def fix_is_safe(code: str, target: str) -> bool:
    """Whether plain `cfglint fix` applies the rule's fix on the target (no `--unsafe-fixes`)."""
    kind = CODES[code].fix
    if kind != "target":
        return kind == "safe"
    found = _shipped().get(target).policy_for(code)
    fix = found[1].fix if found is not None else None
    return fix is None or fix.safe


def reported_line(rule: Rule, example: Example) -> str:
    """The line `cfglint check` prints for an INVALID example (`[*]`: plain `--fix` fixes it)."""
    fixable = example.fixed is not None and fix_is_safe(rule.code, example.target)
    return f"{example.location}: {rule.code}{' [*]' if fixable else ''} {example.message}"


def _code_block(text: str, file: str | None = None) -> str:
    label = f"# {file}\n" if file is not None else ""
    return f"```python\n{label}{text.rstrip()}\n```\n"


def _example_block(rule: Rule, example: Example, flagged: bool) -> str:
    if example.entry is None:
        block = f"Target `{example.target}`:\n\n{_code_block(example.config)}"
    else:
        command = " ".join(("python entry.py config.py", *example.arguments))
        block = (
            f"Target `{example.target}`, launched as `{command}`:\n\n"
            f"{_code_block(example.config, 'config.py')}\n{_code_block(example.entry, 'entry.py')}"
        )
    if not flagged or example.message is None:
        return block
    command = shlex.join(["cfglint", *check_arguments(example)])
    block += f"\n`{command}` reports:\n\n```\n{reported_line(rule, example)}\n```\n"
    named = example.file if example.entry is not None else None
    if example.fixed is not None:
        safe = fix_is_safe(rule.code, example.target)
        fix = "cfglint fix" if safe else "cfglint fix --unsafe-fixes"
        block += f"\nUse instead (what `{fix}` writes):\n\n{_code_block(example.fixed, named)}"
    elif example.instead is not None:
        block += f"\nUse instead:\n\n{_code_block(example.instead, named)}"
    return block


def _fix_safety(rule: Rule) -> str | None:
    kind = CODES[rule.code].fix
    if kind == "none":
        return None
    if kind == "safe":
        said = "The fix is safe: `cfglint fix` applies it."
    elif kind == "unsafe":
        said = "The fix is unsafe: `cfglint fix` applies it only with `--unsafe-fixes`."
    else:
        said = (
            "Each target file says what the fix writes and whether it is safe "
            "(`fix: {value: ..., safe: true}`); on the shipped targets: "
            + _shipped_safety(rule.code)
            + "."
        )
    return f"{said} {rule.fix_safety}".rstrip()


def _shipped_safety(code: str) -> str:
    safe: list[str] = []
    unsafe: list[str] = []
    for name in _shipped().names():
        found = _shipped().get(name).policy_for(code)
        if found is not None and found[1].fix is not None:
            (safe if found[1].fix.safe else unsafe).append(f"`{name}`")
    said = [f"safe on {', '.join(safe)}"] if safe else []
    if unsafe:
        said.append(f"unsafe on {', '.join(unsafe)}")
    return "; ".join(said) or "no fix"


def render_rule(rule: Rule) -> str:
    entry = CODES[rule.code]
    parts = [
        f"# {rule.code} `{rule.name}`\n",
        f"{rule.summary[0].upper()}{rule.summary[1:]}.\n",
        f"Severity: {entry.severity}. Runs: {_SCOPES[entry.scope]}. Fix: {_FIXES[entry.fix]}.\n",
        f"## What it checks\n\n{rule.what}\n",
        f"## Why it breaks training\n\n{rule.why}\n",
    ]
    if rule.invalid:
        blocks = (_example_block(rule, e, flagged=True) for e in rule.invalid)
        parts.append("## Flagged\n\n" + "\n".join(blocks))
    if rule.valid:
        blocks = (_example_block(rule, e, flagged=False) for e in rule.valid)
        parts.append("## Not flagged\n\n" + "\n".join(blocks))
    parts.append(f"## Fix\n\n{rule.fix_doc}\n")
    safety = _fix_safety(rule)
    if safety is not None:
        parts.append(f"## Fix safety\n\n{safety}\n")
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
