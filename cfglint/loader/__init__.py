"""Static, exact resolution of MMEngine configs, with an origin on every value.

``Loader().load(path)`` gives what ``Config.fromfile(path, import_custom_modules=False)`` would,
without running the config: see docs/configs.md for what is evaluated and what is unknown.
"""

from __future__ import annotations

import ast
import gc
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from cfglint.codes import CYCLIC_BASE, UNREADABLE_CONFIG
from cfglint.crash_log import Caught, caught
from cfglint.loader.lazy import LazyModule, resolve_lazy
from cfglint.loader.problems import LoadError, file_span
from cfglint.loader.resolve import FileResolution, parse_py, reserved_key_problem, resolve_file
from cfglint.loader.source import SourceText, read_config_text
from cfglint.types import LoadFailure, LoadProblem, LoadResult, ResolvedConfig, Span

__all__ = ["Loader"]

_T = TypeVar("_T")


class _Failed:
    """A memoised failure of one file (its bases' failures included)."""

    __slots__ = ("error", "internal", "trail")

    def __init__(
        self, error: LoadError, trail: tuple[Path, ...], internal: Caught | None = None
    ) -> None:
        self.error = error
        self.trail = trail  # the files from this one down to the one that failed
        self.internal = internal  # cfglint's own failure (an internal error), not the config's


class _BaseFailedError(Exception):
    def __init__(self, failed: _Failed) -> None:
        super().__init__(failed.error.problem.message)
        self.failed = failed


class Loader:
    """Resolves configs; reuse one Loader so shared bases are parsed and evaluated once.

    ``{{$ENV:default}}`` placeholders resolve to their default (and are marked env-dependent),
    so that results never depend on the shell cfglint runs in. ``environ`` stands for the
    environment MMEngine would see, to ask "what if" from Python.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ: Mapping[str, str] = {} if environ is None else environ
        self._memo: dict[Path, FileResolution | _Failed] = {}
        self._lazy_memo: dict[Path, LazyModule | _Failed] = {}
        self._in_progress: list[Path] = []

    def load(self, path: Path) -> LoadResult:
        absolute = Path(os.path.abspath(path))
        # Resolution allocates many small acyclic objects; the cyclic collector would rescan the
        # whole memo over and over (a third of the run time on the corpus), so it waits.
        collecting = gc.isenabled()
        gc.disable()
        try:
            outcome = self._resolve(absolute, is_leaf=True)
        finally:
            if collecting:
                # What the memo holds lives as long as the Loader: keep the collector from
                # rescanning it after every config (it cost more than the resolution itself).
                gc.freeze()
                gc.enable()
        if isinstance(outcome, _Failed):
            if outcome.internal is not None:
                return LoadFailure(absolute, (), outcome.trail, outcome.internal)
            return LoadFailure(absolute, (self._problem_for(absolute, outcome),), outcome.trail)
        reserved = reserved_key_problem(absolute, outcome.root)
        if reserved is not None:
            return LoadFailure(absolute, (reserved.problem,), outcome.files)
        return ResolvedConfig(absolute, outcome.root, outcome.files, lazy=outcome.lazy)

    def _problem_for(self, leaf: Path, failed: _Failed) -> LoadProblem:
        problem = failed.error.problem
        if len(failed.trail) <= 1 or problem.span.path == leaf:
            return problem
        via = " -> ".join(path.name for path in failed.trail)
        return LoadProblem(problem.code, f"{problem.message} (in a base of {via})", problem.span)

    def _resolve(self, path: Path, is_leaf: bool) -> FileResolution | _Failed:
        cached = self._memo.get(path)
        if cached is not None:
            return cached
        outcome = self._attempt(
            path,
            lambda: resolve_file(
                path, self._environ, self._resolve_base, self._parse_lazy, is_leaf
            ),
        )
        # A leaf's lazy-config check differs from a base's: memoise bases only by their own role.
        if not is_leaf or not isinstance(outcome, _Failed):
            self._memo[path] = outcome
        return outcome

    def _attempt(self, path: Path, compute: Callable[[], _T]) -> _T | _Failed:
        """``compute()`` for one file, or how it failed (its own failure or a base's)."""
        self._in_progress.append(path)
        try:
            outcome: _T | _Failed = compute()
        except LoadError as error:
            outcome = _Failed(error, (path,))
        except _BaseFailedError as error:
            failed = error.failed
            outcome = _Failed(failed.error, (path, *failed.trail), failed.internal)
        except RecursionError:
            outcome = _Failed(
                LoadError(
                    UNREADABLE_CONFIG, "config too deeply nested to resolve", file_span(path)
                ),
                (path,),
            )
        except MemoryError:
            outcome = _Failed(
                LoadError(UNREADABLE_CONFIG, "config too large to resolve", file_span(path)),
                (path,),
            )
        except Exception as error:  # one file must never stop the run
            # cfglint's failure, not the config's: reported as an internal error for this file
            # (reported where the command runs), never as a finding that --ignore could hide.
            found = caught(error, path)
            message = f"internal error: {found.summary}"
            problem = LoadError(UNREADABLE_CONFIG, message, file_span(path))
            outcome = _Failed(problem, (path,), found)
        finally:
            self._in_progress.pop()
        return outcome

    def _resolve_base(self, path: Path, span: Span) -> FileResolution:
        self._check_cycle(path, span, "`_base_`")
        outcome = self._resolve(path, is_leaf=False)
        if isinstance(outcome, _Failed):
            raise _BaseFailedError(outcome)
        return outcome

    def _check_cycle(self, path: Path, span: Span, what: str) -> None:
        if path in self._in_progress:
            start = self._in_progress.index(path)
            cycle = " -> ".join(p.name for p in [*self._in_progress[start:], path])
            raise LoadError(CYCLIC_BASE, f"cyclic {what}: {cycle}", span)

    def _parse_lazy(self, source: SourceText, tree: ast.Module) -> LazyModule:
        return resolve_lazy(source, tree, self._resolve_lazy_base)

    def _resolve_lazy_base(self, path: Path, span: Span) -> LazyModule:
        """A base module of a lazy-import config, parsed in lazy-import mode whatever it holds
        (as MMEngine does), memoised apart from the same file read as a `_base_`."""
        self._check_cycle(path, span, "`read_base()` imports")
        outcome = self._lazy_memo.get(path)
        if outcome is None:

            def parse() -> LazyModule:
                text = read_config_text(path)
                return self._parse_lazy(SourceText(path, text), parse_py(path, text))

            outcome = self._attempt(path, parse)
            self._lazy_memo[path] = outcome
        if isinstance(outcome, _Failed):
            raise _BaseFailedError(outcome)
        return outcome
