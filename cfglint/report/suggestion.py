"""A fix as a suggestion: its edits in the finding's own file, as whole lines replaced.

GitHub suggestions (and reviewdog's, which posts them there) replace whole lines, and appear
only on a comment over exactly the suggestion's lines. Shared by `--output-format rdjson` and
`cfglint review`.
"""

from __future__ import annotations

from cfglint.report.common import absolute_path, fix_is_applicable
from cfglint.report.context import ReportContext
from cfglint.report.source import LineReplacement, SourceFiles
from cfglint.types import TextEdit, Violation


def own_edits(violation: Violation, context: ReportContext) -> list[TextEdit]:
    """The fix's edits that land in the file the finding is in."""
    if violation.fix is None:
        return []
    path = absolute_path(violation.path, context)
    return [edit for edit in violation.fix.edits if absolute_path(edit.span.path, context) == path]


def suggested_lines(
    violation: Violation, context: ReportContext, sources: SourceFiles
) -> LineReplacement | None:
    """The fix's edits in this file as one replacement of whole lines, or None.

    The lines run from the first line the fix or the finding touches to the last (a finding
    that is a point, about the file as a whole, does not pin them: the edits do). Edits that
    land in another file (a fix placed in the leaf configs) are not part of it, and an unsafe
    fix is offered (one click applies it) only when --unsafe-fixes is given.
    """
    fix = violation.fix
    if fix is None or not fix_is_applicable(fix, context):
        return None
    span = violation.span
    is_point = (span.line, span.column) == (span.end_line, span.end_column)
    covering = None if is_point else (span.line, span.end_line)
    replacement = sources.whole_line_replacement(
        absolute_path(violation.path, context), own_edits(violation, context), covering
    )
    return replacement if replacement is not None and is_expressible(replacement) else None


def is_expressible(replacement: LineReplacement) -> bool:
    """Lines that become blank cannot be written as a suggestion (empty means delete)."""
    return not (replacement.text.strip("\r\n") == "" and replacement.text)


def without_final_newline(text: str) -> str:
    """The suggestion's text as written in a block: the block's end stands for the newline."""
    for ending in ("\r\n", "\n"):
        if text.endswith(ending):
            return text[: -len(ending)]
    return text
