"""`# cfglint: ...` comments: the per-file target and noqa suppressions."""

from __future__ import annotations

import re
from dataclasses import dataclass

_TARGET = re.compile(r"#\s*cfglint:\s*target\s*=\s*(?P<name>[A-Za-z0-9._-]+)")
_NOQA = re.compile(
    r"#\s*cfglint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
)


@dataclass(frozen=True, slots=True)
class Noqa:
    """A suppression on one line: every code (codes is None) or the listed ones."""

    codes: frozenset[str] | None

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def target_comment(text: str) -> str | None:
    """The `# cfglint: target=NAME` a config names for itself (the first one)."""
    for line in text.splitlines():
        found = _TARGET.search(line)
        if found is not None and _is_comment(line, found.start()):
            return found.group("name")
    return None


def noqa_by_line(text: str) -> dict[int, Noqa]:
    """1-based line number -> suppression on that line."""
    result: dict[int, Noqa] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if "noqa" not in line:
            continue
        found = _NOQA.search(line)
        if found is None or not _is_comment(line, found.start()):
            continue
        codes = found.group("codes")
        result[number] = Noqa(
            frozenset(re.split(r"[,\s]+", codes.strip())) if codes is not None else None
        )
    return result


def _is_comment(line: str, hash_index: int) -> bool:
    # Good enough for configs: the `#` must not sit inside a string literal on that line.
    before = line[:hash_index]
    return before.count("'") % 2 == 0 and before.count('"') % 2 == 0
