"""The exception that ends a config's resolution with a finding (CL901-CL905, CL907).

The loader raises others internally (control flow for `break`/`continue`, a value that is too
large or cannot be known), but each is caught inside the loader and turned into an unknown value
or into this one; `LoadError` is the only one that reaches `Loader.load`, which reports it.
"""

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
