"""What every renderer needs besides the violations: where paths are shown from, rule docs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cfglint.types import Notice, RuleInfo


@dataclass(frozen=True)
class ReportContext:
    # Paths under it are shown relative to it (ruff style), with POSIX separators.
    cwd: Path
    # code -> RuleInfo for every code that appears in the violations.
    rules: Mapping[str, RuleInfo]
    # Text only; the caller decides (a terminal, and NO_COLOR unset).
    color: bool
    # How many fixes were applied in this run (text summary).
    fixed_count: int = 0
    show_fix_hints: bool = True
    # With --unsafe-fixes, unsafe fixes count as applicable ones instead of hidden ones.
    unsafe_fixes: bool = False
    # False when a config could not be checked (no target: the error is on stderr) or nothing
    # was checked at all: the summary then never says `All checks passed!`.
    complete: bool = True
    # GitHub resolves annotation paths against the repository checkout: $GITHUB_WORKSPACE in
    # Actions (None: `cwd`).
    annotation_root: Path | None = None
    # SARIF's %SRCROOT%: the git work tree cfglint runs in (None: `cwd`).
    source_root: Path | None = None
    # Why the run exits 2 (`5 configs could not be resolved`), for the text summary.
    exit_reasons: tuple[str, ...] = ()
    # What the run printed on stderr besides the report (cli/notices.py), for SARIF's
    # `invocations`.
    notices: tuple[Notice, ...] = ()
