"""--select/--ignore with ruff's prefix semantics, and noqa suppression."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint import directives

# A config that cannot be resolved is never silently skipped.
UNIGNORABLE = frozenset({"CL901", "CL902", "CL903", "CL904", "CL905"})


@dataclass(frozen=True, slots=True)
class Selection:
    select: tuple[str, ...]  # prefixes; "ALL" or "CL" selects everything
    ignore: tuple[str, ...]

    def wants(self, code: str) -> bool:
        if code in UNIGNORABLE:
            return True
        selected = _longest_prefix(code, self.select)
        ignored = _longest_prefix(code, self.ignore)
        # The more specific of the two wins, as in ruff: --select CL2 --ignore CL201.
        return selected > 0 and selected > ignored


def _longest_prefix(code: str, prefixes: Sequence[str]) -> int:
    best = 0
    for prefix in prefixes:
        if prefix == "ALL":
            best = max(best, 1)
        elif code.startswith(prefix):
            best = max(best, len(prefix) + 1)
    return best


class NoqaIndex:
    """Reads each file's suppressions once."""

    def __init__(self) -> None:
        self._by_file: dict[Path, dict[int, directives.Noqa]] = {}

    def suppressed(self, path: Path, line: int, code: str) -> bool:
        if path not in self._by_file:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._by_file[path] = directives.noqa_by_line(text)
        noqa = self._by_file[path].get(line)
        return noqa is not None and noqa.covers(code)
