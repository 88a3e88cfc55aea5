"""The `project` fixture: a project root holding `train.py` and `tools/train.py`."""

from __future__ import annotations

from pathlib import Path

import pytest
from launcher_project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    made = Project(root)
    made.write("train.py", "")
    made.write("tools/train.py", "")
    return made
