"""Each config's result, kept on its own (cfglint/cache/configs.py): an edit re-checks exactly
the configs that read the edited file, the others come from the cache, and what is printed is
always what a `--no-cache` run prints. The inheritance index's findings (cache/index.py) are
kept per file the same way."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import time
from pathlib import Path

import pytest
from helpers import CliResult, run_cli
from project_tree import snapshot, write_tree

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
RUNTIME = "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n"


def _leaf(base: str, index: int) -> str:
    return f"_base_ = ['../_base_/{base}']\nmodel = dict(type='Toy', depth={index})\n"


FILES = {
    "pyproject.toml": SETTINGS,
    "configs/_base_/runtime.py": RUNTIME,
    "configs/_base_/small.py": "_base_ = ['./runtime.py']\nfind_unused_parameters = False\n",
    "configs/_base_/large.py": "_base_ = ['./runtime.py']\n",
    **{f"configs/small/s{index}.py": _leaf("small.py", index) for index in range(3)},
    **{f"configs/large/l{index}.py": _leaf("large.py", index) for index in range(5)},
}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    project = write_tree(tmp_path / "project", FILES)
    _age(project)
    return project


def _age(project: Path) -> None:
    """Make every file older than the racy window, as a project's files usually are: their
    stamps then stand in for their contents."""
    old = time.time() - 60
    for path in project.rglob("*"):
        if ".cfglint_cache" not in path.parts:
            os.utime(path, (old, old))


def _entries(tree: Path) -> dict[str, int]:
    """Each config's cache entry, by name, with its mtime."""
    return {
        path.name: path.stat().st_mtime_ns
        for path in (tree / ".cfglint_cache").glob("*/configs/*")
        if not path.name.startswith(".tmp-")
    }


def _check(tree: Path, *args: str) -> CliResult:
    return run_cli("check", *args, cwd=tree)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("edited", "old", "new", "rechecked"),
    [
        ("configs/_base_/small.py", "False", "True", 3),
        ("configs/_base_/runtime.py", "'nccl'", "'gloo'", 8),
        ("configs/large/l2.py", "depth=2", "depth=22", 1),
    ],
    ids=["a base of three", "the base of all", "one leaf"],
)
def test_an_edit_rechecks_exactly_the_configs_reading_it(
    tree: Path, edited: str, old: str, new: str, rechecked: int
) -> None:
    before = _check(tree)
    stored = _entries(tree)
    assert len(stored) == 8
    _edit(tree / edited, old, new)
    after = _check(tree)
    assert after == _check(tree, "--no-cache")
    written = {name for name, mtime in _entries(tree).items() if stored.get(name) != mtime}
    assert len(written) == rechecked
    if rechecked != 1:
        assert after != before


def test_a_fix_after_a_check_fixes_what_a_fix_without_cache_fixes(
    tree: Path, tmp_path: Path
) -> None:
    """The fix loop's checks after a round of edits see the edited files, never the results
    the check before the fix stored for them."""
    copy = tmp_path / "copy"
    shutil.copytree(tree, copy)
    assert _check(tree).exit_code == 1
    fixed = run_cli("fix", cwd=tree)
    assert (fixed.exit_code, fixed.stdout) == (0, run_cli("fix", "--no-cache", cwd=copy).stdout)
    assert "Fixed" in fixed.stdout
    assert snapshot(tree) == snapshot(copy)


def test_a_fix_leaves_every_config_checked_for_the_next_check(tree: Path) -> None:
    fixed = run_cli("fix", cwd=tree)
    assert "Fixed" in fixed.stdout, fixed.stderr
    _age(tree)
    stored = _entries(tree)
    clean = _check(tree)
    assert clean == _check(tree, "--no-cache")
    assert _entries(tree) == stored  # the fix's last check wrote each config's result


def _damage(entry: Path) -> None:
    entry.write_bytes(entry.read_bytes()[:-40])


def _foreign(entry: Path) -> None:
    """An entry whose header is right but whose pickle would run code if it were loaded."""

    class Runs:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, ("touch RAN",))

    body = pickle.dumps((entry.name, 0, [], [], pickle.dumps(Runs())))
    entry.write_bytes(f"cfglint-config/1 {hashlib.sha256(body).hexdigest()}\n".encode() + body)


@pytest.mark.parametrize("spoil", [_damage, _foreign], ids=["truncated", "foreign"])
def test_a_spoiled_entry_is_never_trusted(tree: Path, spoil: object) -> None:
    first = _check(tree)
    entries = sorted((tree / ".cfglint_cache").glob("*/configs/*"))
    for entry in entries:
        spoil(entry)  # type: ignore[operator]
    _edit(tree / "configs/_base_/large.py", "\n", "\n\n")  # no whole-command replay
    assert _check(tree) == first == _check(tree, "--no-cache")
    assert not (tree / "RAN").exists()
    assert all(entry.read_bytes().startswith(b"cfglint-config/1 ") for entry in entries)
    assert len(_entries(tree)) == 8  # written anew


def test_a_config_inheriting_a_named_file_since_the_last_run_is_checked(tree: Path) -> None:
    """pre-commit names the changed base; the index of who inherits it is kept between runs
    and read again only where a file changed."""
    named = "configs/_base_/small.py"
    first = _check(tree, named)
    assert "3 configs" in first.stdout
    assert list((tree / ".cfglint_cache").glob("*/index/*"))
    _edit(tree / "configs/large/l0.py", "large.py", "small.py")
    again = _check(tree, named)
    assert again == _check(tree, named, "--no-cache")
    assert "4 configs" in again.stdout


def test_a_spoiled_index_is_never_trusted(tree: Path) -> None:
    named = "configs/_base_/small.py"
    first = _check(tree, named)
    (index,) = (tree / ".cfglint_cache").glob("*/index/*")
    index.write_bytes(index.read_bytes()[:100])
    _edit(tree / named, "\n", "\n\n")
    assert _check(tree, named) == first


LAZY_LEAF = (
    "from mmengine.config import read_base\n"
    "\n"
    "with read_base():\n"
    "    from .._base_.runtime import *\n"
    "\n"
    "model = dict(type='Toy')\n"
)


def test_a_stored_override_places_the_fix_as_a_fresh_check_does(tmp_path: Path) -> None:
    """A config's entry keeps the override its check found for each fix in the config itself
    (for a lazy-import config, with the keys it resolves to on the way): a report that places
    fixes from stored entries, here JSON after a text run stored them, gives the edits a
    `--no-cache` run gives, and takes every entry as it is."""
    files = {
        "pyproject.toml": SETTINGS,
        "configs/_base_/runtime.py": RUNTIME,
        "configs/_base_/__init__.py": "",
        "configs/__init__.py": "",
        **{f"configs/lazy/l{index}.py": LAZY_LEAF for index in range(2)},
        "configs/lazy/__init__.py": "",
        "configs/plain/p0.py": _leaf("runtime.py", 0),
    }
    tree = write_tree(tmp_path / "project", files)
    _age(tree)
    _check(tree, "--fix-placement", "leaf")
    stored = _entries(tree)
    assert len(stored) == 3
    as_json = ("--fix-placement", "leaf", "--output-format", "json")
    placed = _check(tree, *as_json)
    assert _entries(tree) == stored  # every outcome came from its entry
    assert placed == _check(tree, *as_json, "--no-cache")
    assert "env_cfg['dist_cfg']['backend'] = 'gloo'" in placed.stdout  # in a lazy leaf
    assert "env_cfg = dict(dist_cfg=dict(backend='gloo'))" in placed.stdout  # the plain leaf
