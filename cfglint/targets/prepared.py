"""The shipped target files, parsed ahead of time into one JSON file (`schemas/prepared.json`).

Every check reads the shipped targets. Parsing them means importing PyYAML and reading seven
YAML files: about 15 ms of a pre-commit run that should take under 0.3 s. JSON's parser is part
of the standard library and already imported.

The YAML files stay the source. Each entry holds the exact text it was parsed from and is used
only while the file still holds that text, so a file edited in place or added later is parsed
from its YAML as before, never answered with stale data.

`python -m cfglint.targets.prepare` writes the file again; a test fails while it is out of date.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FILE_NAME = "prepared.json"
FORMAT = 1


class PreparedTargets:
    """What `schemas/prepared.json` holds: file name -> (its text, its data)."""

    def __init__(self, entries: Mapping[str, tuple[str, Any]]) -> None:
        self._entries = entries

    @classmethod
    def read(cls, folder: Path) -> PreparedTargets:
        """The prepared data beside the shipped files; none when the file is missing or not
        what this module writes (every target is then parsed from its YAML)."""
        try:
            with open(folder / FILE_NAME, "rb") as handle:
                stored = json.loads(handle.read())
        except (OSError, ValueError):
            return cls({})
        entries: dict[str, tuple[str, Any]] = {}
        if isinstance(stored, dict) and stored.get("format") == FORMAT:
            for name, entry in dict(stored.get("files") or {}).items():
                # A target file is a mapping: an entry whose data is not one is no copy of one.
                if (
                    isinstance(entry, dict)
                    and isinstance(entry.get("text"), str)
                    and isinstance(entry.get("data"), dict)
                ):
                    entries[name] = (entry["text"], entry["data"])
        return cls(entries)

    def data_for(self, path: Path, text: str) -> Any | None:
        """The parsed data of the file at `path` when it holds `text`, else None."""
        entry = self._entries.get(path.name)
        if entry is None or entry[0] != text:
            return None
        return entry[1]
