"""--select/--ignore with ruff's prefix semantics, and noqa suppression."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint import directives, files, paths
from cfglint.codes import UNRESOLVED
from cfglint.rules import RULES_BY_CODE
from cfglint.types import Notice

# A config that cannot be resolved is never silently skipped.


@dataclass(frozen=True, slots=True)
class Selection:
    select: tuple[str, ...]  # prefixes; "ALL" or "CL" selects everything
    ignore: tuple[str, ...]

    def wants(self, code: str, needed_by: str | None = None) -> bool:
        """Whether `code` is reported; a CL906 only while the rule that needs the value is."""
        if needed_by is not None and not self.wants(needed_by):
            return False
        if code in UNRESOLVED:  # a config not resolved was not checked: no --ignore hides that
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
    """Reads each file's suppressions once, and collects the noqa comments it did not understand."""

    def __init__(self) -> None:
        self._by_file: dict[Path, directives.Suppressions] = {}
        self.notices: list[Notice] = []  # warnings

    def suppressed(self, path: Path, line: int, code: str, needed_by: str | None = None) -> bool:
        """A noqa for `code`, or for the rule a CL906 was reported for, on `line`."""
        found = self._suppressions(path)
        return found.covers(line, code) or (needed_by is not None and found.covers(line, needed_by))

    def _suppressions(self, path: Path) -> directives.Suppressions:
        if path not in self._by_file:
            try:
                text = files.read_text_capped(path, errors="replace", translate_newlines=True)
            except OSError:
                text = ""
            found = directives.suppressions(text, python=path.suffix == ".py")
            self._by_file[path] = found
            self._warn(path, found)
        return self._by_file[path]

    def _warn(self, path: Path, found: directives.Suppressions) -> None:
        shown = paths.display_path(path)
        for problem in found.problems:
            message = f"{shown}:{problem.line}: {problem.message}"
            self.notices.append(Notice.warning(message, path, problem.line))
        for line, code in found.codes:
            if code not in RULES_BY_CODE:
                message = f"{shown}:{line}: unknown rule `{code}` in a noqa comment"
                self.notices.append(Notice.warning(message, path, line))
