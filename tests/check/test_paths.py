"""The path helpers a check calls thousands of times give what the standard library gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfglint import session
from cfglint.paths import absolute_path, real_path, suffix_of


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "real" / "configs").mkdir(parents=True)
    (tmp_path / "real" / "configs" / "a.py").write_text("model = dict()\n")
    (tmp_path / "real" / "other.py").write_text("model = dict()\n")
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "real" / "configs" / "b.py").symlink_to(tmp_path / "real" / "other.py")
    (tmp_path / ".hidden").mkdir()
    # A link inside a linked folder, a relative link climbing out, a loop, a dangling link.
    (tmp_path / "real" / "configs" / "up").symlink_to("../..", target_is_directory=True)
    (tmp_path / "real" / "loop").symlink_to("loop")
    (tmp_path / "real" / "dangling").symlink_to(tmp_path / "nowhere")
    return tmp_path


def spellings(root: Path) -> list[str]:
    return [
        str(root / "real" / "configs" / "a.py"),
        str(root / "linked" / "configs" / "a.py"),  # a symlinked folder on the way
        str(root / "real" / "configs" / "b.py"),  # the file itself a symlink
        str(root / "linked" / "configs" / "b.py"),
        str(root / "linked" / "configs" / ".." / "other.py"),  # `..` after a symlink
        str(root / "linked" / "configs" / "missing.py"),  # nothing there
        str(root / ".hidden" / "x.py"),
        str(root / "linked") + "//configs/a.py",
        str(root / "linked" / "configs") + "/",
        "linked/configs/a.py",  # relative
        "/",
        str(root / "linked" / "configs" / "up" / "real" / "configs" / "a.py"),
        str(root / "linked" / "configs" / "up" / "linked" / "other.py"),
        str(root / "real" / "loop" / "x.py"),
        str(root / "real" / "dangling" / "x.py"),
        str(root / "real" / "dangling"),
    ]


def test_real_path_is_realpath_for_every_spelling(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    with session.command():
        for spelling in spellings(tree):
            assert real_path(spelling) == os.path.realpath(spelling), spelling
            assert real_path(Path(spelling)) == os.path.realpath(spelling), spelling
            # Asked again in the same command: the remembered folder gives the same answer.
            assert real_path(spelling) == os.path.realpath(spelling), spelling


def test_a_folder_relinked_between_commands_is_resolved_afresh(tree: Path) -> None:
    path = str(tree / "linked" / "configs" / "a.py")
    with session.command():
        assert real_path(path) == str(tree / "real" / "configs" / "a.py")
    (tree / "elsewhere" / "configs").mkdir(parents=True)
    (tree / "linked").unlink()
    (tree / "linked").symlink_to(tree / "elsewhere", target_is_directory=True)
    with session.command():
        assert real_path(path) == str(tree / "elsewhere" / "configs" / "a.py")


def test_absolute_path_is_abspath_for_every_spelling(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    for spelling in [*spellings(tree), "./a/../b.py", "a//b/./c.py", str(tree) + "/x/../y.py"]:
        assert absolute_path(spelling) == os.path.abspath(spelling), spelling


@pytest.mark.parametrize(
    "path",
    ["a.py", "/x/a.tar.gz", "/x/.py", "/x/..sh", "/x/a.", "/x/noext", "/x.d/a", "a.SH", "/", ""],
)
def test_suffix_of_is_pathlibs_suffix(path: str) -> None:
    assert suffix_of(path) == Path(path).suffix
