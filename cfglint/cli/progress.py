"""A progress bar for long runs on a terminal; nothing in CI logs, pipes or machine formats."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def _terminal() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI") and "NO_COLOR" not in os.environ


@contextmanager
def bar(enabled: bool) -> Iterator[Callable[[Path], None] | None]:
    if not (enabled and _terminal()):
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(
        TextColumn("checking"),
        BarColumn(),
        TextColumn("{task.completed} configs"),
        transient=True,
        console=None,
    ) as progress:
        task = progress.add_task("check", total=None)
        yield lambda _path: progress.advance(task)
