"""Render violations for people (text) and for tools (json, sarif, github, rdjson)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from cfglint.errors import UserError
from cfglint.report.context import ReportContext
from cfglint.types import Violation

__all__ = [
    "FORMATS",
    "ReportContext",
    "render",
    "render_statistics",
    "render_statistics_json",
]

Renderer = Callable[[Sequence[Violation], ReportContext], str]

# Each format's module and function, imported when that format is asked for: a pre-commit run
# prints text and never needs the others.
_RENDERERS: dict[str, tuple[str, str]] = {
    "text": ("text", "render_text"),
    "json": ("json_report", "render_json"),
    "sarif": ("sarif", "render_sarif"),
    "github": ("github", "render_github"),
    "rdjson": ("rdjson", "render_rdjson"),
}
FORMATS: tuple[str, ...] = tuple(_RENDERERS)


def _renderer(module: str, name: str) -> Renderer:
    found: Renderer = getattr(importlib.import_module(f"cfglint.report.{module}"), name)
    return found


def render(violations: Sequence[Violation], fmt: str, context: ReportContext) -> str:
    """The whole report in one format; it ends with a newline unless it is empty."""
    where = _RENDERERS.get(fmt)
    if where is None:
        raise UserError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    return _renderer(*where)(violations, context)


def render_statistics(violations: Sequence[Violation], context: ReportContext) -> str:
    return _renderer("statistics", "render_statistics")(violations, context)


def render_statistics_json(violations: Sequence[Violation], context: ReportContext) -> str:
    return _renderer("statistics", "render_statistics_json")(violations, context)
