"""One entry point for every config format: pick the editor by file suffix."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.fix.errors import FixNotApplicable
from cfglint.fix.limits import run_deep, too_costly, too_large
from cfglint.fix.text import TextDoc, split_bom
from cfglint.types import KeyChange, ResolvedKeys, SpanChange, TextEdit

if TYPE_CHECKING:  # libcst is imported only when a .py file is edited
    from cfglint.fix.py_edits import PyEditor
    from cfglint.fix.yaml_edits import ParsedYaml


class FileEditor:
    """One file's text, parsed at most once, turned into edits for any set of changes.

    Columns in the edits count characters, not counting a leading byte order mark.
    ``edits`` raises FixNotApplicable when a change cannot be placed in this file without
    guessing. Changes anchored at a span (``SpanChange``) are for ``.py`` files only: YAML and
    JSON name every value by its key path.
    """

    def __init__(self, path: Path, source: str) -> None:
        self.path = path
        _bom, text = split_bom(source)
        self.doc = TextDoc(path, text)
        self.suffix = path.suffix.lower()
        self._python: PyEditor | FixNotApplicable | None = None  # or why it did not parse
        self._yaml: ParsedYaml | FixNotApplicable | None = None

    def edits(
        self,
        changes: Sequence[KeyChange],
        anchored: Sequence[SpanChange] = (),
        resolved: ResolvedKeys | None = None,
    ) -> tuple[TextEdit, ...]:
        """``resolved``: what the config resolves to on the way to ``changes`` (for overrides
        in a lazy-import ``.py`` config; YAML and JSON have no lazy imports). None: unknown."""
        if not changes and not anchored:
            return ()
        refused = too_large(self.doc.text, self.suffix)
        if refused is not None:
            raise FixNotApplicable(refused)
        try:
            return self._edits(changes, anchored, resolved)
        except RecursionError:  # a deep YAML or JSON file: a limit of the editor, not a bug
            raise FixNotApplicable("the file is nested too deeply to edit") from None

    def _edits(
        self,
        changes: Sequence[KeyChange],
        anchored: Sequence[SpanChange],
        resolved: ResolvedKeys | None,
    ) -> tuple[TextEdit, ...]:
        if self.suffix == ".py":
            editor = self._python_editor()
            return tuple(run_deep(lambda: editor.edits(changes, anchored, resolved)))
        if anchored:
            raise FixNotApplicable(f"cannot edit `{self.suffix}` values by position")
        if self.suffix in (".yaml", ".yml"):
            from cfglint.fix.yaml_edits import parse_yaml, yaml_edits

            if self._yaml is None:
                try:
                    self._yaml = parse_yaml(self.doc)
                except FixNotApplicable as error:
                    self._yaml = error
            if isinstance(self._yaml, FixNotApplicable):
                raise self._yaml
            return tuple(yaml_edits(self.doc, list(changes), self._yaml))
        if self.suffix == ".json":
            from cfglint.fix.json_edits import json_edits

            return tuple(json_edits(self.doc, list(changes)))
        raise FixNotApplicable(f"cannot edit `{self.suffix or self.path.name}` files")

    def _python_editor(self) -> PyEditor:
        from cfglint.fix.py_edits import PyEditor as Editor

        if self._python is None:
            refused = too_costly(self.doc.text)
            try:
                if refused is not None:
                    raise FixNotApplicable(refused)
                doc = self.doc
                self._python = run_deep(lambda: Editor(doc))
            except FixNotApplicable as error:
                self._python = error
            except RecursionError:
                self._python = FixNotApplicable("the file is nested too deeply to edit")
        if isinstance(self._python, FixNotApplicable):
            raise self._python
        return self._python


def edits_for_file(
    path: Path,
    source: str,
    changes: Sequence[KeyChange],
    anchored: Sequence[SpanChange] = (),
) -> tuple[TextEdit, ...]:
    """Minimal text edits that make ``source`` (the text of ``path``) carry ``changes``."""
    return FileEditor(path, source).edits(changes, anchored)
