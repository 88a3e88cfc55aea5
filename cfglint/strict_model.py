"""How every file a user writes for cfglint is read by Pydantic (settings, target files).

Keys are written in kebab-case (`default-target`, `fix-placement`), as in pyproject.toml; a key
cfglint does not know is an error with its line rather than a setting silently ignored.
"""

from __future__ import annotations

from pydantic import ConfigDict


def kebab(name: str) -> str:
    return name.replace("_", "-")


STRICT_KEBAB = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, alias_generator=kebab)
