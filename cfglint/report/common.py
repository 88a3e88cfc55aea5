"""Helpers every format shares: paths as shown, ordering, which fixes apply."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from cfglint import __version__, paths
from cfglint.report.context import ReportContext
from cfglint.types import Applicability, Fix, Violation

TOOL_NAME = "cfglint"
TOOL_VERSION = __version__
TOOL_URL = "https://cfglint.readthedocs.io/"
# Base-file findings name at most this many leaf configs in human-facing output.
MAX_CONFIGS_SHOWN = 3


def absolute_path(path: Path, context: ReportContext) -> Path:
    """The path made absolute against the report's cwd, with `..` folded (symlinks kept)."""
    if paths.absolute_and_normal(str(path)):
        return path  # as nearly every path a check reports: no new Path for each
    joined = path if path.is_absolute() else context.cwd / path
    return Path(os.path.normpath(joined))


def display_path(path: Path, context: ReportContext) -> str:
    """Relative to the report's cwd when under it, absolute otherwise; POSIX separators."""
    return paths.display_path(path, context.cwd)


def sorted_violations(violations: Sequence[Violation], context: ReportContext) -> list[Violation]:
    def key(violation: Violation) -> tuple[str, int, int, str, str, str]:
        span = violation.span
        return (
            display_path(span.path, context),
            span.line,
            span.column,
            violation.code,
            violation.target or "",
            violation.message,
        )

    return sorted(violations, key=key)


def is_base_finding(violation: Violation, context: ReportContext) -> bool:
    """True when the finding is reported for configs other than the file it sits in."""
    here = absolute_path(violation.path, context)
    configs = [absolute_path(config, context) for config in violation.configs]
    return bool(configs) and configs != [here]


def applies_to_note(
    violation: Violation,
    context: ReportContext,
    name: Callable[[int, Path], str] | None = None,
) -> str:
    """`applies to 5 configs: a.py, b.py, c.py and 2 more` (long lists shortened). ``name``
    writes the n-th config (from 1) as the format shows it; default: its display path."""
    configs = violation.configs
    names = [
        name(number, config) if name is not None else display_path(config, context)
        for number, config in enumerate(configs[:MAX_CONFIGS_SHOWN], start=1)
    ]
    rest = len(configs) - len(names)
    listing = ", ".join(names) + (f" and {rest} more" if rest else "")
    return f"applies to {plural(len(configs), 'config')}: {listing}"


def fix_is_applicable(fix: Fix | None, context: ReportContext) -> bool:
    """Whether `--fix` applies it in this run: safe fixes, and unsafe ones with --unsafe-fixes."""
    if fix is None:
        return False
    return fix.applicability is Applicability.SAFE or context.unsafe_fixes


def fix_is_hidden(fix: Fix | None, context: ReportContext) -> bool:
    """An unsafe fix that only --unsafe-fixes would apply."""
    return fix is not None and not fix_is_applicable(fix, context)


def fix_note(fix: Fix | None, context: ReportContext) -> str | None:
    """`fix (safe): ...`, with an unsafe fix marked as such (and how to apply it when this run
    would not): the machine formats that carry a message say it the way the text format does."""
    if fix is None:
        return None
    if fix.applicability is Applicability.SAFE:
        return f"fix (safe): {fix.message}"
    if context.unsafe_fixes:
        return f"fix (unsafe fix): {fix.message}"
    return f"fix (unsafe fix: apply with `--fix --unsafe-fixes`): {fix.message}"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"
