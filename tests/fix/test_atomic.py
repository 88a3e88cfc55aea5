"""Atomic writes: same folder temp file, mode kept, nothing left behind, encoding kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfglint.fix import unwritable_reason, write_atomic


def test_write_replaces_content_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "cfg.py"
    target.write_bytes(b"x = 1\n")
    os.chmod(target, 0o640)
    write_atomic(target, "x = 2\n")
    assert target.read_bytes() == b"x = 2\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.py"]


def test_bom_and_crlf_survive_text_mode_content(tmp_path: Path) -> None:
    target = tmp_path / "cfg.py"
    target.write_bytes("\ufeffx = 1\r\n# 中文\r\n".encode())
    write_atomic(target, "x = 2\n# 中文\n")  # as read with encoding='utf-8-sig', newline=None
    assert target.read_bytes() == "\ufeffx = 2\r\n# 中文\r\n".encode()
    write_atomic(target, "\ufeffx = 3\r\n")  # as read with newline=''
    assert target.read_bytes() == "\ufeffx = 3\r\n".encode()


def test_a_symlink_stays_a_link_to_the_new_content(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, "x = 2\n")
    assert link.is_symlink() and real.read_text() == "x = 2\n"


def test_failure_leaves_the_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "cfg.py"
    target.write_bytes(b"x = 1\n")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "x = 2\n")
    assert target.read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.py"]


def test_a_file_without_write_permission_bits_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "cfg.py"
    target.write_bytes(b"x = 1\n")
    os.chmod(target, 0o444)
    assert unwritable_reason(target) == "the file is read-only (no write permission bit)"
    with pytest.raises(PermissionError, match="read-only"):
        write_atomic(target, "x = 2\n")
    assert target.read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.py"]


def test_a_hard_link_keeps_the_old_content(tmp_path: Path) -> None:
    """Documented: the rename gives the path a new file; other names keep the old one."""
    target = tmp_path / "cfg.py"
    target.write_bytes(b"x = 1\n")
    other = tmp_path / "other.py"
    os.link(target, other)
    write_atomic(target, "x = 2\n")
    assert (target.read_bytes(), other.read_bytes()) == (b"x = 2\n", b"x = 1\n")
