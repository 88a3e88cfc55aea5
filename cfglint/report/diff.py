"""`--diff` for people: the unified diff, coloured on a terminal, as `git diff` colours it."""

from __future__ import annotations

from cfglint.report.styled import StyledLine, join_lines


def _style(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    if line.startswith("-"):
        return "red"
    if line.startswith("+"):
        return "green"
    return ""


def render_diff(diff: str, color: bool) -> str:
    """The diff as it is without colour (byte for byte: `patch` reads it), else styled."""
    if not color or not diff:
        return diff
    lines: list[StyledLine] = [[(line, _style(line))] for line in diff.splitlines()]
    return join_lines(lines, color)
