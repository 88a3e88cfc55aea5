"""Every CL90x diagnostic, and that one bad file never stops the others."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cfglint import crash_log, session
from cfglint.loader import Loader
from cfglint.types import LoadFailure, LoadProblem, ResolvedConfig

WriteTree = Callable[[dict[str, str | bytes]], Path]


def problem(path: Path, environ: dict[str, str] | None = None) -> LoadProblem:
    result = Loader(environ=environ or {}).load(path)
    assert isinstance(result, LoadFailure), result
    assert result.path == Path(os.path.abspath(path))
    (only,) = result.problems
    return only


@pytest.mark.parametrize(
    ("name", "text", "line", "column"),
    [
        ("bad.py", "model = dict(type='M'\n", 1, 13),
        ("bad.yaml", "a: [1, 2\nb: 3\n", 2, 2),
        ("bad.json", '{"a": 1,\n "b": }\n', 2, 7),
    ],
)
def test_cl901_syntax_errors(tree: WriteTree, name: str, text: str, line: int, column: int) -> None:
    root = tree({name: text})
    found = problem(root / name)
    assert found.code == "CL901"
    assert (found.span.path, found.span.line) == (root / name, line)
    assert found.span.column == column


def test_cl902_unreadable_files(tree: WriteTree) -> None:
    root = tree(
        {
            "latin1.py": "# caf\xe9\n".encode("latin-1"),
            "config.toml": "a = 1\n",
            "folder.py/inner.txt": "",
            "lazy.py": "from mmengine.config import read_base\n"
            "with read_base():\n    from .x import *\n",
        }
    )
    assert problem(root / "missing.py").message == "file not found"
    latin = problem(root / "latin1.py")
    assert (latin.code, latin.message) == ("CL902", "not UTF-8 text (byte 0xe9)")
    assert "unsupported config type `.toml`" in problem(root / "config.toml").message
    assert "is a directory" in problem(root / "folder.py").message
    # A lazy-import config is read; the base module it imports is missing.
    lazy = problem(root / "lazy.py")
    assert (lazy.code, lazy.span.line, lazy.span.column) == ("CL903", 3, 5)
    assert lazy.message == f"base config `.x` not found: {root / 'x.py'}"
    big = root / "big.py"
    with big.open("wb") as stream:
        stream.truncate(11 * 1024 * 1024)
    assert "too large" in problem(big).message
    loop = root / "loop.py"
    os.symlink(loop, loop)
    looped = problem(loop)
    assert (looped.code, looped.message) == ("CL902", "symlink loop")


def test_cl903_missing_bases(tree: WriteTree) -> None:
    root = tree(
        {
            "leaf.py": "model = dict()\n_base_ = ['./nope.py']\n",
            "pkg.py": "_base_ = 'mmyolo::yolov5/yolov5_s.py'\n",
        }
    )
    missing = problem(root / "leaf.py")
    assert missing.code == "CL903"
    assert "`_base_` file not found: ./nope.py" in missing.message
    assert (missing.span.path, missing.span.line, missing.span.column) == (root / "leaf.py", 2, 10)
    not_installed = problem(root / "pkg.py")
    assert not_installed.code == "CL903"
    assert "package `mmyolo` is not installed" in not_installed.message


def test_cl904_cycle_is_shown(tree: WriteTree) -> None:
    root = tree(
        {
            "a.py": "_base_ = './b.py'\n",
            "b.py": "_base_ = './c.py'\n",
            "c.py": "_base_ = './b.py'\n",
        }
    )
    found = problem(root / "a.py")
    assert found.code == "CL904"
    assert "b.py -> c.py -> b.py" in found.message
    assert found.span.path == root / "c.py"


def test_cl905_mmengine_errors(tree: WriteTree) -> None:
    root = tree(
        {
            "b1.py": "lr = 0.1\n",
            "b2.py": "lr = 0.2\nmodel = None\n",
            "dup.py": "_base_ = ['./b1.py', './b2.py']\n",
            "nondict.py": "_base_ = './b2.py'\nmodel = dict(type='M')\n",
            "env.py": "root = '{{$DATA_ROOT:}}'\n",
            "ref.py": "_base_ = './b1.py'\nx = {{_base_.nothing}}\n",
            "keyerror.py": "_base_ = './b1.py'\n_base_['missing']['x'] = 1\n",
        }
    )
    duplicate = problem(root / "dup.py")
    assert duplicate.code == "CL905" and "`lr` is defined in two bases" in duplicate.message
    replaced = problem(root / "nondict.py")
    assert replaced.code == "CL905" and "_delete_=True" in replaced.message
    assert (replaced.span.line, replaced.span.column) == (2, 9)
    env = problem(root / "env.py")
    assert env.code == "CL905" and "`{{$DATA_ROOT:}}` has no default" in env.message
    assert (env.span.line, env.span.column) == (1, 9)
    ref = problem(root / "ref.py")
    assert ref.code == "CL905" and "{{_base_.nothing}}" in ref.message
    key = problem(root / "keyerror.py")
    assert key.code == "CL905" and "KeyError: 'missing'" in key.message
    # With the variable set, the placeholder resolves.
    assert isinstance(Loader(environ={"DATA_ROOT": "/d"}).load(root / "env.py"), ResolvedConfig)


def test_problem_in_a_base_names_the_leaf_and_others_go_on(tree: WriteTree) -> None:
    root = tree(
        {
            "_base_/broken.py": "x = (\n",
            "leaf.py": "_base_ = './mid.py'\n",
            "mid.py": "_base_ = './_base_/broken.py'\n",
            "fine.py": "y = 1\n",
        }
    )
    loader = Loader(environ={})
    failure = loader.load(root / "leaf.py")
    assert isinstance(failure, LoadFailure)
    (found,) = failure.problems
    assert found.code == "CL901"
    assert found.span.path == root / "_base_/broken.py"
    assert "(in a base of leaf.py -> mid.py -> broken.py)" in found.message
    assert isinstance(loader.load(root / "fine.py"), ResolvedConfig)
    again = loader.load(root / "mid.py")
    assert isinstance(again, LoadFailure) and again.problems[0].code == "CL901"


def test_a_file_cfglint_fails_on_is_an_internal_error_and_the_others_go_on(
    tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cfglint's own failure is no finding about the config (no --ignore may hide it): the
    failure carries it to where the command reports it, as one line with the traceback logged."""
    from cfglint.loader import resolve

    root = tree({"boom.py": "x = 1\n", "fine.py": "y = 1\n"})
    real = resolve.config_style

    def failing(tree_: object, text: str) -> object:
        if "x = 1" in text:
            raise TypeError("an unexpected bug")
        return real(tree_, text)  # type: ignore[arg-type]

    monkeypatch.setattr(resolve, "config_style", failing)
    loader = Loader()
    failure = loader.load(root / "boom.py")
    assert isinstance(failure, LoadFailure)
    assert failure.problems == ()
    assert failure.internal is not None
    assert failure.internal.path == root / "boom.py"
    assert failure.internal.summary == "TypeError: an unexpected bug"
    assert "raise TypeError" in failure.internal.traceback
    with session.command():
        line = crash_log.report(failure.internal).message
    assert line.startswith("internal error in ")
    assert "boom.py: TypeError: an unexpected bug (traceback written to " in line
    assert isinstance(loader.load(root / "fine.py"), ResolvedConfig)


def test_merge_error_names_the_base_type_with_its_article(tree: WriteTree) -> None:
    root = tree({"b.py": "model = 3\n", "leaf.py": "_base_ = './b.py'\nmodel = dict(a=1)\n"})
    assert "a dict here but an int in the base" in problem(root / "leaf.py").message


def test_the_shell_environment_never_changes_a_result(
    tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree({"c.py": "root = '{{$DATA_ROOT:/data}}'\nneeded = '{{$NEEDED:}}'\n"})
    monkeypatch.setenv("DATA_ROOT", "/elsewhere")
    monkeypatch.setenv("NEEDED", "set")
    found = Loader().load(root / "c.py")
    assert isinstance(found, LoadFailure)  # no default: MMEngine fails whenever NEEDED is unset
    # The message says what MMEngine does, not what this shell has set.
    message = found.problems[0].message
    assert "`{{$NEEDED:}}` has no default: MMEngine stops when `NEEDED` is unset" in message
    assert "is not set" not in message
    (root / "c.py").write_text("root = '{{$DATA_ROOT:/data}}'\n")
    resolved = Loader().load(root / "c.py")
    assert isinstance(resolved, ResolvedConfig)
    node = resolved.get("root")
    assert node is not None and getattr(node, "value", None) == "/data"


def test_a_star_import_is_a_diagnostic(tree: WriteTree) -> None:
    root = tree({"c.py": "from math import *\nx = 1\n"})
    found = problem(root / "c.py")
    assert found.code == "CL902"
    assert "`from math import *`: cfglint cannot tell which names it binds" in found.message
    assert (found.span.line, found.span.column) == (1, 1)


def test_check_goes_through_yaml_merge_keys_and_lone_surrogates(tree: WriteTree) -> None:
    from helpers import run_cli

    root = tree(
        {
            "configs/merge.yaml": "b: &B {backend: nccl}\nenv_cfg:\n  dist_cfg:\n    <<: *B\n",
            "configs/flow.yaml": "x: {<<: [{a: 1}, {b: 2}], c: 3}\n",
            "configs/lone.json": '{"name": "\\ud83d", "m": {"a": 1}}',
            "configs/broken.yaml": "a: [1\n",
            "configs/fine.py": "y = 1\n",
        }
    )
    names = ("merge.yaml", "flow.yaml", "lone.json", "broken.yaml", "fine.py")
    result = run_cli("check", *(f"configs/{name}" for name in names), cwd=root)
    assert "internal error" not in result.stderr, result.stderr
    assert result.exit_code == 2  # broken.yaml cannot be resolved; the others are checked
    assert "configs/broken.yaml:2:1: CL901" in result.stdout + result.stderr
    shown = run_cli("show", "--json", "configs/merge.yaml", "configs/flow.yaml", cwd=root)
    values = json.loads(shown.stdout)
    assert values["configs/merge.yaml"]["env_cfg"]["value"] == {"dist_cfg": {"backend": "nccl"}}
    assert values["configs/flow.yaml"]["x"]["value"] == {"a": 1, "b": 2, "c": 3}
