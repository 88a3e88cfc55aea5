"""Checking in worker processes (engine/pool.py) prints exactly what one process prints: the
same findings in the same order, the same errors and warnings, the same fixes written, whatever
the number of workers and however the configs were shared out."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, CliResult, run_cli
from hostile_cases import HOOK_CLI
from project_tree import snapshot, write_tree

from cfglint.crash_log import ISSUES_URL
from cfglint.engine.pool import WORKERS_VARIABLE

GROUPS = 4
LEAVES = 36  # per group: 144 configs, enough for the pool without forcing it


def _leaf(group: int, index: int) -> str:
    """A leaf of one group, with something different every few leaves."""
    lines = []
    if index % 5 != 0:  # else the settings' default target: cuda
        lines.append("# cfglint: target=t20-gcu")
    if index % 11 == 10:
        lines.append("_base_ = ['../_base_/missing.py']")
    elif index % 23 == 22:
        lines.append(f"_base_ = ['./leaf{index - 1}.py']")  # a leaf inheriting a leaf
    else:
        lines.append(f"_base_ = ['../_base_/g{group}.py']")
    if index % 13 != 12:  # else a fragment: no model
        lines.append(f"model = dict(type='Toy', depth={index})")
    if index % 7 == 0:
        lines.append("model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])")
    if index % 17 == 3:
        lines.append("env_cfg = dict(cudnn_benchmark=True)  # cfglint: noqa: CL301")
    if index % 19 == 4:
        lines.append("import os\nenv_cfg = dict(dist_cfg=dict(backend=os.environ['BACKEND']))")
    if index % 9 == 8:
        lines.append("train_cfg = dict(device='cuda:0')")
    return "\n".join(lines) + "\n"


def _project(root: Path) -> Path:
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("__pycache__", ".cfglint_cache"))
    files = {}
    for group in range(GROUPS):
        runtime = "_base_ = ['../../_base_/default_runtime.py']\n"
        files[f"configs/many/_base_/g{group}.py"] = runtime + (
            "find_unused_parameters = True\n" if group == 1 else ""
        )
        for index in range(LEAVES):
            files[f"configs/many/g{group}/leaf{index}.py"] = _leaf(group, index)
    return write_tree(root, files)


def _check(project: Path, workers: int, *args: str) -> CliResult:
    env = {**os.environ, WORKERS_VARIABLE: str(workers)}
    return run_cli(*args, "--no-cache", cwd=project, env=env)


def _in_a_process(command: list[str], project: Path, workers: int) -> CliResult:
    """A command line of its own (a fault injected through tests/hostile/hook_cli.py)."""
    completed = subprocess.run(
        command,
        cwd=project,
        env={**os.environ, WORKERS_VARIABLE: str(workers)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("workers") / "project")


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("check", "--output-format", "json"),
        ("check", "--statistics"),
        ("check", "--target", "t20-gcu", "--fix-placement", "origin"),
        ("check", "configs/many/_base_/g2.py", "configs/many/g0/leaf3.py"),
    ],
    ids=["text", "json", "statistics", "target-origin", "named-files"],
)
def test_workers_print_what_one_process_prints(project: Path, args: tuple[str, ...]) -> None:
    alone = _check(project, 1, *args)
    assert alone.exit_code in (1, 2), alone.stderr
    assert "CL2" in alone.stdout
    assert _check(project, 2, *args) == alone
    assert _check(project, 3, *args) == alone  # ranges of unequal length, chunks taken over


def test_the_project_has_what_the_comparisons_need(project: Path) -> None:
    result = _check(project, 1, "check", "--statistics")
    assert result.exit_code == 2  # the configs with a missing base
    for code in ("CL903", "CL201", "CL203", "CL906", "CL403", "CL101"):
        assert code in result.stdout


def test_fix_in_workers_writes_what_one_process_writes(tmp_path: Path) -> None:
    results = []
    for workers in (1, 2):
        project = _project(tmp_path / str(workers))
        fixed = _check(project, workers, "fix", "--unsafe-fixes")
        # Messages about a missing base name its absolute path.
        printed = [text.replace(str(project), "PROJECT") for text in (fixed.stdout, fixed.stderr)]
        results.append((fixed.exit_code, printed, snapshot(project)))
    (code_alone, printed_alone, files_alone), pooled = results
    assert "Fixed" in printed_alone[0]
    assert pooled == (code_alone, printed_alone, files_alone)


_HOOKED_FIX = [sys.executable, str(HOOK_CLI), "crash-verifying:leaf0.py", "fix", "--no-cache"]


def test_a_fix_verified_in_workers_fails_as_in_one_process(tmp_path: Path) -> None:
    """The fix loop resolves every config reading an edited file again, before and after the
    round, on every core: cfglint's own failure to verify one of them puts its edits back and
    is told as in one process (each command logs its tracebacks to a file of its own)."""
    results = []
    log = re.compile(r"traceback written to [^;]+;")
    logs = []
    for workers in (1, 2):
        project = _project(tmp_path / str(workers))
        completed = _in_a_process([*_HOOKED_FIX, "configs/many/g0"], project, workers)
        printed = [
            log.sub("LOG;", text).replace(str(project), "PROJECT")
            for text in (completed.stdout, completed.stderr)
        ]
        results.append((completed.exit_code, printed, snapshot(project)))
        logs.append(set(log.findall(completed.stderr)))
    (code, (stdout, stderr), files), pooled = results
    assert [len(found) for found in logs] == [1, 1]  # one log per command, workers or not
    assert pooled == results[0]
    assert code == 2 and "Fixed" in stdout
    assert "internal error in configs/many/g0/leaf0.py" in stderr
    leaf = "configs/many/g0/leaf0.py"
    assert f"{leaf}: fix reverted: {leaf} could not be verified" in stderr
    assert b"device_ids=[0]" in files["configs/many/g0/leaf0.py"]  # put back
    assert b"device_ids=[0]" not in files["configs/many/g0/leaf7.py"]  # fixed


def test_notices_from_workers_are_what_one_process_tells(tmp_path: Path) -> None:
    """A config without a known target, a noqa comment not understood and cfglint's own failure
    on a config, met in worker processes: the same lines on stderr, the same SARIF
    notifications, the same exit code."""
    project = _project(tmp_path / "project")
    group = project / "configs/many/g3"
    (group / "leaf31.py").write_text("# cfglint: target=nosuch-target\nmodel = dict()\n")
    (group / "boom.py").write_text("_base_ = ['../_base_/g3.py']\nmodel = dict()\n")
    with (group / "leaf28.py").open("a") as leaf:
        leaf.write("env_cfg = dict(cudnn_benchmark=True)  # cfglint: noqa: CL999\n")
    printed = []
    hooked = [sys.executable, str(HOOK_CLI), "crash-loading:boom.py"]
    for workers in (1, 2):
        for output_format in ("text", "sarif"):
            command = [*hooked, "check", "--no-cache", "--output-format", output_format]
            completed = _in_a_process([*command, "configs/many"], project, workers)
            # Each command logs tracebacks to a file of its own.
            log = re.compile(r"traceback written to [^;]+;")
            out, err = (log.sub("LOG;", text) for text in (completed.stdout, completed.stderr))
            printed.append((completed.exit_code, out, err))
    alone, pooled = printed[:2], printed[2:]
    assert pooled == alone
    (code, _text, stderr), (_code, sarif, _stderr) = alone
    assert code == 2
    assert [line.split(":")[:2] for line in stderr.splitlines()] == [
        ["cfglint", " error"],
        ["cfglint", " internal error in configs/many/g3/boom.py"],
        ["cfglint", " warning"],
    ]
    (invocation,) = json.loads(sarif)["runs"][0]["invocations"]
    assert [note["level"] for note in invocation["toolExecutionNotifications"]] == [
        "error",
        "error",
        "warning",
    ]


def test_a_failure_on_a_base_every_worker_meets_is_one_internal_error(project: Path) -> None:
    """cfglint's own failure on a base all the configs inherit, met in both workers: one line,
    one log file and one count, as in one process (each worker used to log it to a file of its
    own, and the run printed and counted it once per worker)."""
    hooked = [sys.executable, str(HOOK_CLI), "crash-loading:default_runtime.py", "check"]
    printed = []
    for workers in (1, 2):
        completed = _in_a_process([*hooked, "--no-cache", "configs/many"], project, workers)
        logs = re.findall(r"traceback written to ([^;]+);", completed.stderr)
        assert len(logs) == 1, completed.stderr
        assert Path(logs[0]).read_text(encoding="utf-8").count("Traceback") == 1
        stderr = completed.stderr.replace(logs[0], "LOG")
        printed.append((completed.exit_code, completed.stdout, stderr))
    alone, pooled = printed
    assert pooled == alone
    code, stdout, stderr = alone
    assert code == 2
    assert [line for line in stderr.splitlines() if "internal error" in line] == [
        "cfglint: internal error in configs/_base_/default_runtime.py: TypeError: injected fault "
        f"while resolving default_runtime.py (traceback written to LOG; please report it at "
        f"{ISSUES_URL})"
    ]
    assert stdout.splitlines()[-1].endswith("; 1 internal error on stderr.")


def test_a_worker_that_dies_loses_no_config(project: Path) -> None:
    """A worker killed in the middle (out of memory, say): what it had not sent back is
    checked in the parent, and every outcome is the one a single process gives."""
    from cfglint.engine.config_check import ConfigChecker
    from cfglint.engine.outcome import ConfigOutcome
    from cfglint.engine.pool import check_in_workers
    from cfglint.loader import Loader

    parent = os.getpid()
    jobs = [(path, True) for path in sorted((project / "configs/many").rglob("leaf*.py"))]
    doomed = jobs[len(jobs) // 3][0]

    class Dying(ConfigChecker):
        def check(self, path: Path, named: bool) -> ConfigOutcome:
            if os.getpid() != parent and path == doomed:
                os._exit(9)
            return super().check(path, named)

    def checker(kind: type[ConfigChecker]) -> ConfigChecker:
        return kind(None, None, (), Loader())

    seen: list[Path] = []
    cwd = os.getcwd()
    os.chdir(project)
    try:
        pooled = check_in_workers(checker(Dying), jobs, 2, lambda _o, _n: None, seen.append)
        alone = check_in_workers(checker(ConfigChecker), jobs, 1, lambda _o, _n: None)
    finally:
        os.chdir(cwd)
    assert pooled == alone
    assert sorted(seen) == sorted(path for path, _named in jobs)  # each once


def test_how_many_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    from cfglint.engine.pool import worker_count

    monkeypatch.delenv(WORKERS_VARIABLE, raising=False)
    assert worker_count(30) == 1  # too few configs to pay for a worker's start
    assert 1 <= worker_count(10_000) <= len(os.sched_getaffinity(0))
    monkeypatch.setenv(WORKERS_VARIABLE, "3")
    assert (worker_count(10_000), worker_count(2)) == (3, 2)
    monkeypatch.setenv(WORKERS_VARIABLE, "1")
    assert worker_count(10_000) == 1
