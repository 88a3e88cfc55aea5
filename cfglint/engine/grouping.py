"""Where a finding about a key that no file writes is reported, and where its fix goes first.

A value that is wrong is reported where it is written, once for every config inheriting it. A
key that is missing is written nowhere, so each config lacking it would be its own finding (800
of them on mmdet's tree, all the same). Instead the configs lacking a key are reported at a file
they all read, the site, where one edit adds the key for all of them:

- a site is read by at least two configs that lack the key and want the same value;
- every checked config reading the site lacks the key and has the same target (most of them
  with the finding): adding it there changes no config that sets the key itself, and none of
  another target;
- configs wanting another value (`find_unused_parameters=True`) get a site of their own, which
  inherits any site already chosen for configs reading it (so its value wins), or their own
  file, whose override beats any base;
- otherwise two sites never share a reader, so one config never gets the key from two sibling
  bases (MMEngine refuses a key that two of a file's bases both set).

The fix loop still verifies every edit (engine/fixes.py) and falls back to the leaves.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path

from cfglint import files
from cfglint.discover import is_base_file
from cfglint.types import Span


@dataclass(frozen=True, slots=True)
class Lacking:
    """One config lacking a key."""

    config: Path  # real path
    # The fix's value as exact text (with the message): configs wanting different values differ.
    wants: str
    reads: tuple[Path, ...]  # real paths of the files its resolution read, itself first


@dataclass(frozen=True, slots=True)
class Checked:
    """What the check knows of who reads what (real paths)."""

    readers: Mapping[Path, Set[Path]]  # file -> every checked config reading it
    reads: Mapping[Path, tuple[Path, ...]]  # checked config -> the files it reads
    # A checked config without the finding that the key may still reach through a site.
    unaffected: Callable[[Path], bool]


def choose_sites(
    lacking: Sequence[Lacking], checked: Checked, eligible: Callable[[Path], bool]
) -> dict[Path, list[Path]]:
    """Site -> the configs reported there (a config alone is its own site); ``eligible``: a
    file a fix may go to."""
    wants = {item.config: item for item in lacking}
    by_value: dict[str, set[Path]] = {}
    for item in lacking:
        by_value.setdefault(item.wants, set()).add(item.config)
    sites: dict[Path, list[Path]] = {}
    taken: dict[Path, Path] = {}  # config reading a shared site already chosen -> that site
    for value in sorted(by_value, key=lambda text: (-len(by_value[text]), text)):
        remaining = by_value[value]
        while remaining:
            site = _best_site(remaining, wants, checked, taken, eligible)
            if site is None:
                break
            covered = checked.readers[site] & remaining
            sites[site] = sorted(covered)
            taken.update((config, site) for config in checked.readers[site])
            remaining = remaining - covered
        for config in sorted(remaining):
            sites.setdefault(config, []).append(config)
    return sites


def _best_site(
    remaining: set[Path],
    wants: Mapping[Path, Lacking],
    checked: Checked,
    taken: Mapping[Path, Path],
    eligible: Callable[[Path], bool],
) -> Path | None:
    readers = checked.readers
    counts: Counter[Path] = Counter()
    for config in remaining:
        counts.update(set(wants[config].reads))

    def overrides_taken(path: Path, reading: Set[Path]) -> bool:
        # Every site already giving a reader the key is one this file inherits: its value wins.
        inherited = set(checked.reads.get(path, ()))
        return all(taken[config] in inherited for config in reading if config in taken)

    def rank(item: tuple[Path, int]) -> tuple[int, bool, int, str]:
        # The most configs; then a `_base_` file (where a maintainer keeps shared keys); then
        # the file more configs read (the more general base); then by name, for a stable run.
        path, count = item
        return (-count, not is_base_file(path), -len(readers.get(path, ())), str(path))

    for path, count in sorted(counts.items(), key=rank):
        if count < 2:
            return None
        reading = readers.get(path, frozenset())
        if (
            all(config in wants or checked.unaffected(config) for config in reading)
            and overrides_taken(path, reading)
            and eligible(path)
        ):
            return path
    return None


def site_span(path: Path) -> Span:
    """The line a finding for many configs points at in a site: its `_base_`, else its first
    statement (the file's first line for YAML, JSON, or a file that cannot be read)."""
    fallback = Span(path, 1, 1, 1, 1)
    if path.suffix != ".py":
        return fallback
    try:
        tree = ast.parse(files.read_text_capped(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return fallback
    if not tree.body:
        return fallback
    first = tree.body[0]
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if any(isinstance(target, ast.Name) and target.id == "_base_" for target in targets):
            first = statement
            break
    return Span(path, first.lineno, first.col_offset + 1, first.lineno, first.col_offset + 1)
