"""Render violations for people (text) and for tools (json, sarif, github, rdjson)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cfglint.errors import UserError
from cfglint.report.context import ReportContext
from cfglint.report.github import render_github
from cfglint.report.json_report import render_json
from cfglint.report.rdjson import render_rdjson
from cfglint.report.sarif import render_sarif
from cfglint.report.statistics import render_statistics, render_statistics_json
from cfglint.report.text import render_text
from cfglint.types import Violation

__all__ = [
    "FORMATS",
    "ReportContext",
    "render",
    "render_statistics",
    "render_statistics_json",
]

_RENDERERS: dict[str, Callable[[Sequence[Violation], ReportContext], str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "rdjson": render_rdjson,
}
FORMATS: tuple[str, ...] = tuple(_RENDERERS)


def render(violations: Sequence[Violation], fmt: str, context: ReportContext) -> str:
    """The whole report in one format; it ends with a newline unless it is empty."""
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise UserError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    return renderer(violations, context)
