"""A small project in a tmp dir for launcher tests: write launcher texts, read them with
`read_launcher` (shared by tests/launch)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.launch.shell import read_launcher
from cfglint.types import Launch, LauncherFile, Span


@dataclass
class Project:
    """A project root holding `train.py` and `tools/train.py` (entry scripts that exist)."""

    root: Path

    def write(self, relative: str, content: str | bytes) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return path

    def read(
        self,
        text: str | bytes,
        *,
        name: str = "run.sh",
        arguments: Sequence[str] | None = None,
        cwd: Path | None = None,
    ) -> LauncherFile:
        path = self.write(name, text)
        return read_launcher(path, cwd=cwd or self.root, arguments=arguments)

    def launch(self, text: str, **options: object) -> Launch:
        """The one launch of a launcher."""
        result = self.read(text, **options)  # type: ignore[arg-type]
        assert result.problems == (), result.problems
        assert len(result.launches) == 1, result.launches
        return result.launches[0]

    def span(
        self, line: int, column: int, end_line: int, end_column: int, name: str = "run.sh"
    ) -> Span:
        return Span(self.root / name, line, column, end_line, end_column)
