"""Pieces every sub-command shares: exit codes and argument types."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

EXIT_CLEAN = 0
EXIT_VIOLATIONS = 1
EXIT_ERROR = 2

# The report formats (cfglint/report/); here so that parsing the command line imports no report.
OUTPUT_FORMATS = ("text", "json", "sarif", "github", "rdjson")


def codes_argument(text: str) -> tuple[str, ...]:
    """`CL201,CL3` -> ('CL201', 'CL3'); rejects anything that is not a code or prefix."""
    # The catalogue, only for the commands that take codes.
    from cfglint.rules import RULES_BY_CODE, is_selector
    from cfglint.suggest import did_you_mean

    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    for code in codes:
        if not is_selector(code):
            hint = did_you_mean(code, RULES_BY_CODE, quote="`")
            raise argparse.ArgumentTypeError(
                f"unknown rule selector `{code}`{hint} (`cfglint rule` lists the rules)"
            )
    return codes


def table(rows: Sequence[Sequence[str]]) -> str:
    """Rows under a header row, in columns two spaces apart (the last one not padded)."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"
