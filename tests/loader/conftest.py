"""Small config trees written into tmp dirs for the loader tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

WriteTree = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def tree(tmp_path: Path) -> WriteTree:
    """Write {relative path: text} under tmp_path; returns tmp_path."""

    def write(files: dict[str, str | bytes]) -> Path:
        for relative, content in files.items():
            path = tmp_path / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return tmp_path

    return write
