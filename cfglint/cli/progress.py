"""A progress bar for long runs on a terminal; nothing in CI logs, pipes or machine formats."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def on_terminal() -> bool:
    # The bar is drawn on stderr: stdout is the report, often redirected to a file.
    return sys.stderr.isatty() and not os.environ.get("CI") and "NO_COLOR" not in os.environ


@contextmanager
def bar(
    enabled: bool, label: str, count_text: str, total: int | None = None
) -> Iterator[Callable[[object], None] | None]:
    """Yields a callable that advances the bar by one (its argument is ignored), or None when
    no bar is shown. `count_text` formats the count, e.g. ``"{task.completed} configs"``."""
    if not (enabled and on_terminal()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

    with Progress(
        SpinnerColumn(),
        TextColumn(label),
        BarColumn(),
        TextColumn(count_text),
        # Drawn on the terminal, never recorded for the result cache (cli/cached.py).
        console=Console(file=getattr(sys.stderr, "unrecorded", sys.stderr)),
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda _item: progress.advance(task)
