"""Pieces every sub-command shares: exit codes and argument types."""

from __future__ import annotations

import argparse

EXIT_CLEAN = 0
EXIT_VIOLATIONS = 1
EXIT_ERROR = 2

# The report formats (cfglint/report/); here so that parsing the command line imports no report.
OUTPUT_FORMATS = ("text", "json", "sarif", "github", "rdjson")


def codes_argument(text: str) -> tuple[str, ...]:
    """`CL201,CL3` -> ('CL201', 'CL3'); rejects anything that is not a code or prefix."""
    from cfglint.rules import is_selector  # the catalogue, only for the commands that take codes

    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    for code in codes:
        if not is_selector(code):
            raise argparse.ArgumentTypeError(
                f"unknown rule selector `{code}` (`cfglint rule --all` lists the rules)"
            )
    return codes
