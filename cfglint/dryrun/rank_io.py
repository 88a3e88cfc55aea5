"""What a rank writes for the launcher: its result and its phase file, each written whole.

Standard library only: the entry-script probe uses it inside the user's process.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from cfglint.dryrun.result import Phase, PhaseMark


def write_json(target: Path, data: dict[str, Any]) -> None:
    # Written whole then renamed, so the parent never reads half a file.
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(json.dumps(data), encoding="utf-8")
    temporary.replace(target)


def mark_phase(phase_path: str, phase: Phase, doing: str, waits_for_ranks: bool) -> None:
    """Only for the report about a hung rank: never a reason to fail the rank."""
    if not phase_path:
        return
    with contextlib.suppress(OSError):
        write_json(Path(phase_path), PhaseMark(phase, doing, waits_for_ranks).to_json())
