"""The result cache, as a user meets it: a second run prints exactly what a `--no-cache` run
prints, at once; any edit to what the run read (a base, the settings, a target file, a
launcher, an entry script, a new config) makes it check again; a broken or foreign cache file is
never trusted; two runs at once both print the right result."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from helpers import EXAMPLES, REPO_ROOT, CliResult, run_cli

from cfglint import session
from cfglint.cache.key import code_stamp
from cfglint.cli import check_cmd

# Runs the command line in a subprocess and writes, beside its output, whether the check
# pipeline was imported: a replayed result never imports it.
_RUN = """
import sys
from cfglint.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as mark:
    mark.write("checked" if "cfglint.engine.run" in sys.modules else "replayed")
raise SystemExit(code)
"""


def run_in_a_process(
    tree: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[CliResult, str]:
    """For what only a fresh interpreter shows: the modules a replay imports, another copy of
    cfglint's code, two processes at once."""
    mark = tree.parent / "mark.txt"
    completed = subprocess.run(
        [sys.executable, "-c", _RUN, str(mark), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    how = mark.read_text(encoding="utf-8")
    mark.unlink()
    return CliResult(completed.returncode, completed.stdout, completed.stderr), how


def run(tree: Path, *args: str, env: dict[str, str] | None = None) -> tuple[CliResult, str]:
    """The command line in this process (`run_cli`), and whether the cache let the command run
    ("checked") or printed what it had stored ("replayed")."""
    ran: list[bool] = []
    real = check_cmd.run_cached

    def counted(*positional: Any, **named: Any) -> int:
        command, options, paths, compute = positional

        def computed() -> int:
            ran.append(True)
            result: int = compute()
            return result

        return real(command, options, paths, computed, **named)

    with mock.patch.object(check_cmd, "run_cached", counted):
        result = run_cli(*args, cwd=tree, env=env)
    return result, "checked" if ran else "replayed"


def cold(tree: Path, *args: str) -> CliResult:
    return run(tree, "check", "--no-cache", *args)[0]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", ".cfglint_cache"))
    return copy


@pytest.mark.parametrize(
    "args",
    [(), ("--output-format", "json"), ("--statistics",), ("--output-format", "sarif")],
    ids=["text", "json", "statistics", "sarif"],
)
def test_a_second_run_replays_exactly_what_a_cold_run_prints(
    tree: Path, args: tuple[str, ...]
) -> None:
    first, how_first = run(tree, "check", *args)
    second, how_second = run(tree, "check", *args)
    assert (how_first, how_second) == ("checked", "replayed")
    assert first.exit_code == 1
    assert second == first == cold(tree, *args)
    assert (tree / ".cfglint_cache" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


def test_a_replayed_run_imports_no_check_pipeline(tree: Path) -> None:
    """What makes a replay instant: a fresh interpreter prints the stored result without
    importing the pipeline (the in-process runs above cannot show what a process imports)."""
    first, how_first = run_in_a_process(tree, "check")
    second, how_second = run_in_a_process(tree, "check")
    assert (how_first, how_second) == ("checked", "replayed")
    assert second == first == run(tree, "check")[0]


def test_a_replayed_run_tells_the_same_warnings_and_errors(tree: Path) -> None:
    """What is no finding is replayed too: on stderr, and in the SARIF report's invocation."""
    (tree / "configs/dinov3/noqa_warning.py").write_text(
        "model = dict(type='X')\nenv_cfg = dict(cudnn_benchmark=True)  # cfglint: noqa: CL999\n",
        encoding="utf-8",
    )
    (tree / "configs/cuda/unknown_target.py").write_text(
        "# cfglint: target=nosuch-target\nmodel = dict(type='X')\n", encoding="utf-8"
    )
    args = ("--output-format", "sarif")
    first, how_first = run(tree, "check", *args)
    second, how_second = run(tree, "check", *args)
    assert (how_first, how_second) == ("checked", "replayed")
    assert second == first == cold(tree, *args)
    assert first.exit_code == 2
    error, warning = first.stderr.splitlines()
    assert error.startswith(f"cfglint: error: {tree / 'configs/cuda/unknown_target.py'}:")
    assert "unknown target 'nosuch-target'" in error
    assert warning == (
        "cfglint: warning: configs/dinov3/noqa_warning.py:2: unknown rule `CL999` in a noqa comment"
    )
    (invocation,) = json.loads(second.stdout)["runs"][0]["invocations"]
    notifications = invocation["toolExecutionNotifications"]
    assert invocation["executionSuccessful"] is False
    assert [note["level"] for note in notifications] == ["error", "warning"]


def _replace(relative: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(tree: Path) -> None:
        path = tree / relative
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


WRAPPER = "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"


def _append(relative: str, text: str) -> Callable[[Path], None]:
    def edit(tree: Path) -> None:
        with (tree / relative).open("a", encoding="utf-8") as handle:
            handle.write(text)

    return edit


def _new_config(tree: Path) -> None:
    smoke = tree / "configs/gcu_smoke/toy_gcu_smoke.py"
    shutil.copy(smoke, tree / "configs/gcu_smoke/new_folder/second.py")


def _new_folder(tree: Path) -> None:
    (tree / "configs/gcu_smoke/new_folder").mkdir()


ENTRY = "scripts/train_distributed_8card_gcu.py"
TARGET = (
    "name: mine\nextends: t20-gcu\ndescription: ours\nkeys:\n"
    "  env_cfg.cudnn_benchmark:\n    rule: CL301\n    allowed: [false]\n"
    "    fix: {value: false, safe: true}\n"
)
OWN_TARGET_SETTINGS = (
    '[tool.cfglint]\ndefault-target = "cuda"\nexclude = ["toy_model.py"]\n'
    'extra-targets = ["mine.yaml"]\n\n[tool.cfglint.targets]\n'
    '"configs/dinov3/**" = "mine"\n'
)
ENTRY_POINT_SETTINGS = (
    '[tool.cfglint]\ndefault-target = "cuda"\nexclude = ["toy_model.py"]\n'
    f'entry-points = ["{ENTRY} --launcher pytorch"]\n\n[tool.cfglint.targets]\n'
    '"configs/**" = "t20-gcu"\n'
)


def _settings(text: str) -> Callable[[Path], None]:
    def write(tree: Path) -> None:
        (tree / "pyproject.toml").write_text(text, encoding="utf-8")

    return write


def _also(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def all_of(tree: Path) -> None:
        for step in steps:
            step(tree)

    return all_of


def _target_file(tree: Path) -> None:
    (tree / "mine.yaml").write_text(TARGET, encoding="utf-8")


CASES: dict[str, tuple[Callable[[Path], None] | None, Callable[[Path], None], tuple[str, ...]]] = {
    # name: (set-up before the first run, the edit, the command's arguments)
    "base": (None, _replace("configs/_base_/default_runtime.py", "'nccl'", "'gloo'"), ()),
    "leaf": (None, _append("configs/gcu_smoke/toy_gcu_smoke.py", WRAPPER), ()),
    "settings": (None, _replace("pyproject.toml", '"cuda"', '"t20-gcu"'), ()),
    "new settings file above a named folder": (
        None,
        lambda tree: (tree / "configs/cfglint.toml").write_text('default-target = "cpu"\n'),
        ("configs/dinov3",),
    ),
    "target file": (
        _also(_settings(OWN_TARGET_SETTINGS), _target_file),
        _replace("mine.yaml", "allowed: [false]", "allowed: [true, false]"),
        (),
    ),
    "launcher": (
        None,
        _replace("scripts/start_8card_training.sh", "_8card.py", "_8card_ddp.py"),
        (),
    ),
    "entry script of a launcher": (None, _replace(ENTRY, "", "\n"), ()),
    "entry script of --entry": (
        None,
        _replace(ENTRY, "", "\n"),
        ("--entry", ENTRY, "--entry-args", "--launcher pytorch", "configs/gcu_smoke"),
    ),
    "entry script of the settings' entry-points": (
        _settings(ENTRY_POINT_SETTINGS),
        _replace(ENTRY, "", "\n"),
        ("configs",),
    ),
    "new config in a new folder": (_new_folder, _new_config, ()),
    "removed base": (None, lambda tree: (tree / "configs/_base_/default_runtime.py").unlink(), ()),
}


@pytest.mark.parametrize("name", CASES)
def test_an_edit_to_anything_the_run_read_is_checked_again(tree: Path, name: str) -> None:
    set_up, edit, args = CASES[name]
    if set_up is not None:
        set_up(tree)
    before, _ = run(tree, "check", *args)
    assert run(tree, "check", *args) == (before, "replayed")
    edit(tree)
    after, how = run(tree, "check", *args)
    assert how == "checked"
    assert after == cold(tree, *args)
    assert after != before  # the edit matters: a stale replay would have shown
    assert run(tree, "check", *args) == (after, "replayed")


def _entries(tree: Path) -> list[Path]:
    """The whole-command entries (each config's outcome and the index are kept in folders
    beside them)."""
    return sorted(
        path
        for path in (tree / ".cfglint_cache").rglob("*")
        if path.is_file() and path.parent.name[0].isdigit()
    )


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"",
        lambda data: data.replace(b'"exit_code":1', b'"exit_code":0'),
        lambda data: b"not a cache file at all\n" + data,
    ],
    ids=["truncated", "empty", "altered", "foreign"],
)
def test_a_damaged_cache_file_is_never_trusted(
    tree: Path, damage: Callable[[bytes], bytes]
) -> None:
    first, _ = run(tree, "check")
    (entry,) = _entries(tree)
    entry.write_bytes(damage(entry.read_bytes()))
    assert run(tree, "check") == (first, "checked")
    assert run(tree, "check") == (first, "replayed")  # and written anew


def test_two_runs_at_once_both_print_the_right_result(tree: Path) -> None:
    expected = cold(tree)
    command = [sys.executable, "-m", "cfglint", "check"]
    runs = [
        subprocess.Popen(command, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for process in runs:
        stdout, stderr = process.communicate(timeout=600)
        assert CliResult(process.returncode, stdout.decode(), stderr.decode()) == expected
    assert len(_entries(tree)) == 1
    again = subprocess.run(
        command, cwd=tree, capture_output=True, text=True, check=False, timeout=300
    )
    assert CliResult(again.returncode, again.stdout, again.stderr) == expected


def test_no_cache_neither_reads_nor_writes(tree: Path) -> None:
    assert run(tree, "check", "--no-cache")[1] == "checked"
    assert not (tree / ".cfglint_cache").exists()


def test_cache_dir_option_and_environment_variable(tree: Path, tmp_path: Path) -> None:
    first, _ = run(tree, "check", "--cache-dir", str(tmp_path / "option"))
    assert (tmp_path / "option" / ".gitignore").is_file()
    assert run(tree, "check", "--cache-dir", str(tmp_path / "option")) == (first, "replayed")
    env = {**os.environ, "CFGLINT_CACHE_DIR": str(tmp_path / "variable")}
    assert run(tree, "check", env=env) == (first, "checked")
    assert run(tree, "check", env=env) == (first, "replayed")
    assert (tmp_path / "variable" / "CACHEDIR.TAG").is_file()
    assert not (tree / ".cfglint_cache").exists()


def test_a_cache_that_cannot_be_written_is_said_once_and_changes_no_result(tree: Path) -> None:
    (tree / "not_a_folder").write_text("", encoding="utf-8")
    unwritable = tree / "not_a_folder" / "cache"
    expected = cold(tree)
    for _ in range(2):
        result, how = run(tree, "check", "--cache-dir", str(unwritable))
        assert how == "checked"
        assert (result.exit_code, result.stdout) == (expected.exit_code, expected.stdout)
        assert result.stderr == expected.stderr + (
            f"cfglint: warning: cannot write the cache in {unwritable}: Not a directory "
            "(every run checks again)\n"
        )


def test_a_fix_that_wrote_files_is_never_replayed(tree: Path) -> None:
    fixed, how = run(tree, "fix")
    assert how == "checked" and "Fixed 6 errors." in fixed.stdout
    again, how = run(tree, "fix")
    assert how == "checked" and "Fixed" not in again.stdout
    assert run(tree, "fix") == (again, "replayed")  # nothing was written that time


def test_a_package_installed_for_a_pkg_base_is_seen(tmp_path: Path) -> None:
    """`mmdet::` is found through the import path: installing the package there (a folder
    appearing in a folder of PYTHONPATH) changes the result."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.cfglint]\ndefault-target = "t20-gcu"\n')
    (project / "leaf.py").write_text(
        "_base_ = 'mmdet::_base_/rt.py'\nmodel = dict(type='Toy')\n", encoding="utf-8"
    )
    site = tmp_path / "site"
    site.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    missing, _ = run(project, "check", env=env)
    assert "CL903" in missing.stdout and "mmdet" in missing.stdout
    assert run(project, "check", env=env) == (missing, "replayed")
    (site / "mmdet" / ".mim" / "configs" / "_base_").mkdir(parents=True)
    (site / "mmdet" / "__init__.py").write_text("", encoding="utf-8")
    (site / "mmdet" / ".mim" / "configs" / "_base_" / "rt.py").write_text(
        "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n", encoding="utf-8"
    )
    installed, how = run(project, "check", env=env)
    assert how == "checked" and "CL903" not in installed.stdout
    assert installed == run(project, "check", "--no-cache", env=env)[0]


def test_a_replayed_run_writes_the_output_file_too(tree: Path) -> None:
    report = tree.parent / "reports" / "cfglint.txt"
    first, how = run(tree, "check", "--output-file", str(report))
    assert (how, first.stdout) == ("checked", "")
    written = report.read_text(encoding="utf-8")
    assert written == cold(tree).stdout
    report.unlink()
    second, how = run(tree, "check", "--output-file", str(report))
    assert (how, second.stdout, second.exit_code) == ("replayed", "", first.exit_code)
    assert report.read_text(encoding="utf-8") == written


def test_other_cfglint_code_of_the_same_version_checks_again(tree: Path, tmp_path: Path) -> None:
    """A checkout, or a reinstall from another commit, keeps the version number: what the old
    code printed is not replayed by the new. Here the new code changes a rule's message."""
    code = tmp_path / "code"
    shutil.copytree(
        REPO_ROOT / "cfglint", code / "cfglint", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(REPO_ROOT / "schemas", code / "cfglint" / "schemas")  # as a wheel has them
    env = {**os.environ, "PYTHONPATH": str(code)}
    first, how = run_in_a_process(tree, "check", env=env)
    assert how == "checked" and "which does not work on the target" in first.stdout
    assert run_in_a_process(tree, "check", env=env) == (first, "replayed")
    rule = code / "cfglint" / "rules" / "cl101_dist_backend.py"
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("which does not work on", "which fails on"), encoding="utf-8")
    changed, how = run_in_a_process(tree, "check", env=env)
    assert how == "checked" and "which fails on the target" in changed.stdout
    assert run_in_a_process(tree, "check", env=env) == (changed, "replayed")


def test_the_code_stamp_follows_modules_not_byte_code(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")
    (package / "sub" / "b.py").write_text("y = 2\n")
    with session.command():
        before = code_stamp(str(package))
    (package / "sub" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")
    (package / "notes.txt").write_text("not code\n")
    with session.command():
        assert code_stamp(str(package)) == before
    (package / "sub" / "b.py").write_text("y = 3\n")
    os.utime(package / "sub" / "b.py", ns=(1, 1))  # the same size: the time tells
    with session.command():
        edited = code_stamp(str(package))
    assert edited != before
    (package / "sub" / "c.py").write_text("")
    with session.command():
        assert code_stamp(str(package)) not in (before, edited)
