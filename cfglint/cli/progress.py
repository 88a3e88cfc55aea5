"""A progress bar for long runs on a terminal; nothing in CI logs, pipes or machine formats."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def on_terminal() -> bool:
    # The bar is drawn on stderr: stdout is the report, often redirected to a file.
    return sys.stderr.isatty() and not os.environ.get("CI") and "NO_COLOR" not in os.environ


@contextmanager
def _drawn(*columns: str) -> Iterator[Progress]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

    label, *rest = columns
    with Progress(
        SpinnerColumn(),
        TextColumn(label),
        BarColumn(),
        *(TextColumn(column) for column in rest),
        # Drawn on the terminal, never recorded for the result cache (cli/cached.py).
        console=Console(file=getattr(sys.stderr, "unrecorded", sys.stderr)),
        transient=True,
    ) as progress:
        yield progress


@contextmanager
def bar(
    enabled: bool, label: str, count_text: str, total: int | None = None
) -> Iterator[Callable[[object], None] | None]:
    """Yields a callable that advances the bar by one (its argument is ignored), or None when
    no bar is shown. `count_text` formats the count, e.g. ``"{task.completed} configs"``."""
    if not (enabled and on_terminal()):
        yield None
        return
    with _drawn(label, count_text) as progress:
        task = progress.add_task(label, total=total)
        yield lambda _item: progress.advance(task)


class ConfigBar:
    """The bar of a check and of each round of a fix: `expect(n)` adds to the total (a check
    learns of the configs inheriting a named file as it loads them), each call advances it by
    one config, and `stage(label)` starts the count again under a new label."""

    def __init__(self, progress: Progress, label: str) -> None:
        self._progress = progress
        self._task: TaskID = progress.add_task(label, total=0, label=label)

    def stage(self, label: str) -> ConfigBar:
        self._progress.reset(self._task, total=0, label=label)
        return self

    def expect(self, count: int) -> None:
        task = self._progress.tasks[self._task]
        self._progress.update(self._task, total=(task.total or 0) + count)

    def __call__(self, _config: Path) -> None:
        self._progress.advance(self._task)


@contextmanager
def config_bar(enabled: bool, label: str) -> Iterator[ConfigBar | None]:
    """A ConfigBar on a terminal (None elsewhere), e.g. ``checking  ━━━━╸━━━  312/800 configs``."""
    if not (enabled and on_terminal()):
        yield None
        return
    with _drawn("{task.fields[label]}", "{task.completed}/{task.total} configs") as progress:
        yield ConfigBar(progress, label)
