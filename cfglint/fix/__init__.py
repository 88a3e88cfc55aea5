"""The fix engine: key changes -> minimal text edits in one config file, applied and written safely.

``edits_for_file`` turns ``KeyChange`` values into ``TextEdit`` values for a ``.py``, ``.yaml``/
``.yml`` or ``.json`` config; ``apply_text_edits`` applies them (refusing overlaps);
``check_still_valid`` says whether the result still parses; ``write_atomic`` writes it;
``unified_diff`` shows it. ``FileEditor`` parses a file once for several sets of changes.
See docs/fixes.md for what the edits look like in a user's file.
"""

from __future__ import annotations

from cfglint.fix.apply import apply_text_edits
from cfglint.fix.atomic import unwritable_reason, write_atomic
from cfglint.fix.diff import unified_diff
from cfglint.fix.dispatch import FileEditor, edits_for_file
from cfglint.fix.errors import FixNotApplicable, OverlappingEditsError
from cfglint.fix.validate import check_still_valid

__all__ = [
    "FileEditor",
    "FixNotApplicable",
    "OverlappingEditsError",
    "apply_text_edits",
    "check_still_valid",
    "edits_for_file",
    "unified_diff",
    "unwritable_reason",
    "write_atomic",
]
