"""`cfglint check --add-noqa`: a noqa comment on the line of every finding left, in the files of
the project (never in installed code, an excluded folder or a file outside the project), each
file written atomically."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cfglint import files
from cfglint.codes import UNRESOLVED
from cfglint.engine.inheritors import InheritanceIndexes
from cfglint.engine.project_index import ProjectIndex
from cfglint.engine.run import CheckResult
from cfglint.fix import write_atomic
from cfglint.fix.noqa import add_noqa
from cfglint.paths import display_path
from cfglint.report.common import plural
from cfglint.types import Notice

_KINDS = {".py": "python", ".yaml": "yaml", ".yml": "yaml"}


@dataclass
class Added:
    count: int = 0  # lines that got a directive
    # Findings left without a directive (warnings), files that could not be written (errors).
    notices: list[Notice] = field(default_factory=list)


def add_noqa_comments(
    result: CheckResult, paths: Sequence[Path], indexes: InheritanceIndexes
) -> Added:
    by_file: dict[Path, dict[int, set[str]]] = {}
    for violation in result.violations:
        # A config that cannot be resolved is never silenced wholesale.
        if violation.code not in UNRESOLVED:
            lines = by_file.setdefault(violation.path, {})
            lines.setdefault(violation.span.line, set()).add(violation.code)
    added = Added()
    project = ProjectIndex(result, paths, indexes)
    for path, codes_by_line in sorted(by_file.items()):
        _add_to_file(path, codes_by_line, project, added)
    return added


def _add_to_file(
    path: Path, codes_by_line: dict[int, set[str]], project: ProjectIndex, added: Added
) -> None:
    shown = display_path(path)
    findings = plural(sum(len(codes) for codes in codes_by_line.values()), "finding")
    kind = _KINDS.get(path.suffix.lower())
    if kind is None:
        why = "JSON has no comments" if path.suffix.lower() == ".json" else "not a config file"
        added.notices.append(Notice.warning(f"{shown}: no noqa added for {findings}: {why}", path))
        return
    refusal = project.not_editable(path)
    if refusal is not None:
        message = f"{shown}: no noqa added for {findings}: {refusal}"
        added.notices.append(Notice.warning(message, path))
        return
    try:
        text = files.read_text_capped(path)
    except (OSError, UnicodeDecodeError) as error:
        added.notices.append(Notice.warning(f"{shown}: no noqa added: {_reason(error)}", path))
        return
    edit = add_noqa(text, codes_by_line, kind=kind)
    for line in edit.refused:
        message = f"{shown}:{line}: no noqa added: the line cannot take a comment"
        added.notices.append(Notice.warning(message, path, line))
    if not edit.added:
        return
    try:
        write_atomic(path, edit.text)
    except OSError as error:
        added.notices.append(Notice.write_error(f"cannot write {shown}: {_reason(error)}", path))
        return
    added.count += len(edit.added)


def _reason(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)
