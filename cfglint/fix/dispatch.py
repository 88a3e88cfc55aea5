"""One entry point for every config format: pick the editor by file suffix."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.text import TextDoc, split_bom
from cfglint.types import KeyChange, TextEdit


def edits_for_file(path: Path, source: str, changes: Sequence[KeyChange]) -> tuple[TextEdit, ...]:
    """Minimal text edits that make ``source`` (the text of ``path``) carry ``changes``.

    Columns in the edits count characters, not counting a leading byte order mark. Raises
    FixNotApplicable when a change cannot be placed in this file without guessing.
    """
    if not changes:
        return ()
    _bom, text = split_bom(source)
    doc = TextDoc(path, text)
    suffix = path.suffix.lower()
    if suffix == ".py":
        from cfglint.fix.py_edits import python_edits

        return tuple(python_edits(doc, list(changes)))
    if suffix in (".yaml", ".yml"):
        from cfglint.fix.yaml_edits import yaml_edits

        return tuple(yaml_edits(doc, list(changes)))
    if suffix == ".json":
        from cfglint.fix.json_edits import json_edits

        return tuple(json_edits(doc, list(changes)))
    raise FixNotApplicable(f"cannot edit `{suffix or path.name}` files")
