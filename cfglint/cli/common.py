"""Pieces every sub-command shares: exit codes and argument types."""

from __future__ import annotations

import argparse
import re

EXIT_CLEAN = 0
EXIT_VIOLATIONS = 1
EXIT_ERROR = 2

_CODE = re.compile(r"^(ALL|CL[0-9]{0,3})$")


def codes_argument(text: str) -> tuple[str, ...]:
    """`CL201,CL3` -> ('CL201', 'CL3'); rejects anything that is not a code or prefix."""
    from cfglint.rules import is_selector  # the catalogue, only for the commands that take codes

    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    for code in codes:
        if not _CODE.match(code):
            raise argparse.ArgumentTypeError(
                f"{code!r} is not a rule code or prefix (e.g. CL201, CL2)"
            )
        if not is_selector(code):
            raise argparse.ArgumentTypeError(
                f"unknown rule selector `{code}` (`cfglint rule --all` lists the rules)"
            )
    return codes
