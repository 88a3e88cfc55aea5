"""Where a rank looks for `custom_imports`: the current folder and the config's project root."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_MARKERS = ("pyproject.toml", "cfglint.toml")


def project_root(config: Path) -> Path | None:
    """The nearest folder above the config holding a pyproject.toml or cfglint.toml."""
    start = Path(os.path.abspath(config)).parent
    for folder in (start, *start.parents):
        if any((folder / marker).is_file() for marker in PROJECT_MARKERS):
            return folder
    return None


def import_paths(config: Path, cwd: Path) -> tuple[Path, ...]:
    """What OpenMMLab's tools/dist_train.sh puts on PYTHONPATH, cwd first, no duplicates."""
    paths = [Path(os.path.abspath(cwd))]
    root = project_root(config)
    if root is not None and root not in paths:
        paths.append(root)
    return tuple(paths)
