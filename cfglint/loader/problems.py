"""The one exception the loader raises internally: a problem that fails the whole config."""

from __future__ import annotations

from pathlib import Path

from cfglint.types import LoadProblem, Span


def file_span(path: Path, line: int = 1, column: int = 1) -> Span:
    return Span(path, line, column, line, column)


class LoadError(Exception):
    def __init__(self, code: str, message: str, span: Span) -> None:
        super().__init__(message)
        self.problem = LoadProblem(code, message, span)


def fail(code: str, message: str, path: Path, line: int = 1, column: int = 1) -> LoadError:
    return LoadError(code, message, file_span(path, line, column))
