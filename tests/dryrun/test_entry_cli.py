"""`cfglint dryrun --entry SCRIPT -- ARGS` through the command line: real rank processes running
real entry scripts (torch CPU, real MMEngine) with the probe loaded before them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT, CliResult, run_cli, run_cli_in_a_process

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE / "entry_scripts"
CONFIG = "configs/toy_t20_gcu.py"  # relative to SCRIPTS, as a user types it

DDP_ERROR = (
    "ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
    "single-device/multiple-device GPU modules or CPU modules, but got device_ids [{rank}], "
    "output_device None, and module parameters {{device(type='cpu')}}."
)
CPU_WARNING = (
    "warning: the parameters end on the CPU for target t20-gcu (device 'gcu'): training would "
    "run on the CPU"
)


def environment(**extra: str) -> dict[str, str]:
    # The toy model is found through PYTHONPATH, as OpenMMLab's tools/dist_train.sh sets it.
    return dict(os.environ, PYTHONPATH=str(EXAMPLES), **extra)


def entry(
    script: str | Path,
    *script_args: str | Path,
    options: tuple[str, ...] = (),
    cwd: Path = SCRIPTS,
    env: dict[str, str] | None = None,
) -> CliResult:
    return run_cli(
        "dryrun", "--entry", script, *options, "--", *script_args,
        cwd=cwd, env=env or environment(),
    )


def rank_blocks(stdout: str) -> dict[int, str]:
    blocks: dict[int, str] = {}
    current: int | None = None
    for line in stdout.splitlines():
        if line.startswith("rank "):
            current = int(line.split()[1])
            blocks[current] = line + "\n"
        elif line.startswith("    ") and current is not None:
            blocks[current] += line + "\n"
        else:
            current = None
    return blocks


def probe_processes_for(marker: str) -> list[int]:
    """Live rank processes of an entry dry run whose command line mentions `marker`."""
    return processes_mentioning("cfglint.dryrun.probe", marker)


def processes_mentioning(*markers: str) -> list[int]:
    """Live processes whose command line holds every one of `markers` (/proc)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            command = _cmdline(int(name))
            if all(marker in command for marker in markers):
                found.append(int(name))
    return found


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below `folder`, with its modification time and size."""
    found = {}
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with_stat = os.lstat(path)
            found[os.path.relpath(path, folder)] = (with_stat.st_mtime_ns, with_stat.st_size)
    return found


# --- the seed-001 script: the config is right, the script overwrites it ----------------------


@pytest.fixture(scope="module")
def seed_001_run(tmp_path_factory: pytest.TempPathFactory) -> CliResult:
    work = tmp_path_factory.mktemp("work")
    return entry(
        "train_gcu_8card.py", CONFIG, "--launcher", "pytorch", "--work-dir", work,
        options=("--world-size", "2"),
    )


def test_a_script_overriding_model_wrapper_cfg_fails_on_every_rank_with_mmengines_error(
    seed_001_run: CliResult,
) -> None:
    result = seed_001_run
    assert result.exit_code == 1, result.stdout + result.stderr
    said = result.stderr.splitlines()[0]
    assert said.startswith(
        "cfglint dryrun: this executes the entry script `train_gcu_8card.py "
        f"{CONFIG} --launcher pytorch --work-dir "
    )
    assert said.endswith("` (Python code) in 2 process(es), up to where training would start")
    # The target is the one the config among the script's arguments declares.
    assert "dry run of the entry script for target t20-gcu (device 'gcu'), 2 rank(s)" in (
        result.stdout.splitlines()[0]
    )
    blocks = rank_blocks(result.stdout)
    assert sorted(blocks) == [0, 1]
    for rank, block in blocks.items():
        assert f"rank {rank} (LOCAL_RANK {rank}): FAILED in wrap" in block
        assert f"error: {DDP_ERROR.format(rank=rank)}" in block
        assert "-> CL201 catches this statically" in block
        assert "parameters: {cpu}  buffers: {cpu}" in block
        assert (
            "wrap 1: Runner.wrap_model (from train_gcu_8card.py:32 `runner = "
            f"Runner.from_cfg(cfg)`): MMDistributedDataParallel(device_ids=[{rank}], "
            "output_device=None), module on {cpu}: failed with ValueError"
        ) in block
        assert "ended: the script raised ValueError: no training step ran" in block
    assert "problem: rank 1: wrap failed with ValueError (CL201)" in result.stdout
    assert (
        "note: path: the script created the process group itself "
        "(torch.distributed.init_process_group at train_gcu_8card.py:31, gloo); "
        "Runner.setup_env then skipped mmengine.dist.init_dist"
    ) in result.stdout
    # What the script did to the config, seen at run time.
    assert (
        "note: model_wrapper_cfg: configs/toy_t20_gcu.py gives dict(type="
        "'MMDistributedDataParallel', find_unused_parameters=False, broadcast_buffers=False, "
        "device_ids=None), but Runner.wrap_model got dict(type='MMDistributedDataParallel', "
        "find_unused_parameters=False, broadcast_buffers=False): the script changed it after "
        "Config.fromfile"
    ) in result.stdout


# --- the same script with device_ids=None, run from a copy to watch what it touches ---------


@dataclass(frozen=True)
class FixedRun:
    result: CliResult
    script: Path
    script_digest: str
    folder_before: dict[str, tuple[int, int]]
    folder_after: dict[str, tuple[int, int]]
    site_before: dict[str, tuple[int, int]]
    site_after: dict[str, tuple[int, int]]
    temporary: Path


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory: pytest.TempPathFactory) -> FixedRun:
    folder = tmp_path_factory.mktemp("project")
    script = folder / "train_gcu_8card_fixed.py"
    shutil.copy2(SCRIPTS / "train_gcu_8card_fixed.py", script)
    temporary = tmp_path_factory.mktemp("tmp")
    work = tmp_path_factory.mktemp("work")
    site_packages = Path(sysconfig.get_paths()["purelib"])
    folder_before, site_before = _snapshot(folder), _snapshot(site_packages)
    digest = hashlib.sha256(script.read_bytes()).hexdigest()
    result = entry(
        script, SCRIPTS / CONFIG, "--launcher", "pytorch", "--work-dir", work,
        options=("--json",),
        cwd=folder,
        env=environment(TMPDIR=str(temporary)),
    )
    return FixedRun(
        result, script, digest, folder_before, _snapshot(folder), site_before,
        _snapshot(site_packages), temporary,
    )


def test_the_fixed_script_wraps_on_cpu_on_every_rank_and_stops_before_training(
    fixed_run: FixedRun,
) -> None:
    result = fixed_run.result
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["schema"] == 3 and report["mode"] == "entry"
    assert report["entry"]["args"][0] == str(SCRIPTS / CONFIG)
    assert report["config"] == str(SCRIPTS / CONFIG)
    assert report["launcher"] is None
    assert report["problems"] == [] and report["errors"] == []
    assert report["warnings"] == [CPU_WARNING.removeprefix("warning: ")]
    assert [rank["rank"] for rank in report["ranks"]] == [0, 1]
    for rank in report["ranks"]:
        assert rank["status"] == "ok", rank
        assert rank["mmengine_device"] == "cpu"
        assert rank["cuda_visible_devices"] == ""
        assert rank["parameter_devices"] == ["cpu"] and rank["buffer_devices"] == ["cpu"]
        assert rank["wrapper"] == {
            "type": "MMDistributedDataParallel",
            "device_ids": None,
            "output_device": None,
            "is_ddp": True,
        }
        # Training would have built the dataset, which does not exist: it never started.
        assert rank["script_end"] == "stopped" and rank["stopped_at"] == "Runner.train"
        assert rank["dist_path"] == "entry-point" and rank["process_group_by"] == "script"
        (wrap,) = rank["wraps"]
        assert wrap["by"] == "runner" and wrap["device_ids"] is None
        assert wrap["handed_parameter_devices"] == ["cpu"]
        assert wrap["script_line"]["code"] == "runner = Runner.from_cfg(cfg)"
        assert rank["process_exit_code"] == 0


def test_the_fixed_script_in_text_says_no_training_step_ran(tmp_path: Path) -> None:
    result = entry(
        "train_gcu_8card_fixed.py", CONFIG, "--launcher", "pytorch", "--work-dir", tmp_path,
        options=("--world-size", "1"),
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    block = rank_blocks(result.stdout)[0]
    assert "rank 0 (LOCAL_RANK 0): wrapped" in block
    assert "wrapper: MMDistributedDataParallel (device_ids=None, output_device=None)" in block
    assert "stopped at Runner.train: no training step ran" in block
    assert CPU_WARNING in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "ok: all 1 ranks ran the entry script through its wraps; no training step ran"
    )


def test_the_script_is_run_unmodified_and_nothing_is_written_beside_it_or_in_site_packages(
    fixed_run: FixedRun,
) -> None:
    assert fixed_run.result.exit_code == 0, fixed_run.result.stdout
    assert hashlib.sha256(fixed_run.script.read_bytes()).hexdigest() == fixed_run.script_digest
    assert fixed_run.folder_after == fixed_run.folder_before
    added = set(fixed_run.site_after) - set(fixed_run.site_before)
    changed = {
        path
        for path in set(fixed_run.site_before) & set(fixed_run.site_after)
        if fixed_run.site_before[path] != fixed_run.site_after[path]
    }
    assert added == set() and changed == set()
    # The launcher's temporary folder (results, logs) is gone.
    assert list(fixed_run.temporary.glob("cfglint-*")) == []


# --- init_dist in the script (seed 003) --------------------------------------------------


def test_a_script_calling_init_dist_itself_fails_in_init_dist_on_every_rank_mapped_to_cl102(
    tmp_path: Path,
) -> None:
    result = entry("train_init_dist.py", CONFIG, "--work-dir", tmp_path, options=("--json",))
    assert result.exit_code == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert len(report["ranks"]) == 2
    for rank in report["ranks"]:
        assert rank["status"] == "failed" and rank["phase"] == "setup_env"
        assert rank["error"]["phase"] == "setup_env"
        functions = [frame["function"] for frame in rank["error"]["frames"]]
        assert "init_dist" in functions and "_init_dist_pytorch" in functions
        assert [hit["code"] for hit in rank["rules"]] == ["CL102"]
        (call,) = rank["init_dist_calls"]
        assert (call["by"], call["launcher"], call["backend"]) == ("script", "pytorch", "gloo")
        assert call["script_line"]["code"] == "init_dist(launcher='pytorch', backend='gloo')"
        assert call["error"]["message"] == rank["error"]["message"]
        assert rank["wraps"] == []
    assert report["problems"] == [
        f"rank {n}: setup_env failed with {report['ranks'][n]['error']['type']} (CL102)"
        for n in (0, 1)
    ]


# --- the script wraps runner.model itself (seed 002) ---------------------------------------


def test_a_failing_rewrap_by_the_script_is_reported_with_the_scripts_own_line(
    tmp_path: Path,
) -> None:
    result = entry(
        "train_rewrap.py", CONFIG, "--work-dir", tmp_path, "--device-ids", "rank0",
    )
    assert result.exit_code == 1, result.stdout + result.stderr
    for rank, block in rank_blocks(result.stdout).items():
        assert f"rank {rank} (LOCAL_RANK {rank}): FAILED in wrap" in block
        # Every rank asked for device 0: the script's own hard-coded [0].
        assert f"error: {DDP_ERROR.format(rank=0)}" in block
        assert "-> CL201 catches this statically" in block
        assert (
            "wrap 1: Runner.wrap_model (from train_rewrap.py:22 `runner = "
            "Runner.from_cfg(cfg)`): no wrapper (returned the ToyClassifier), model on {cpu}: ok"
        ) in block
        assert (
            "wrap 2: the script at train_rewrap.py:24 `runner.model = "
            "MMDistributedDataParallel(runner.model, device_ids=ids, broadcast_buffers=False)`: "
            "MMDistributedDataParallel(device_ids=[0], output_device=None), module on {cpu}: "
            "failed with ValueError (not the Runner's call: the fix goes in the code shown)"
        ) in block
    assert "note: path: no process group" not in result.stdout


def test_a_passing_rewrap_by_the_script_is_what_training_would_use(tmp_path: Path) -> None:
    result = entry(
        "train_rewrap.py", CONFIG, "--work-dir", tmp_path, "--device-ids", "none",
        options=("--json",),
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    for rank in report["ranks"]:
        assert rank["status"] == "ok"
        assert rank["runner_launcher"] == "none"
        runner_wrap, script_wrap = rank["wraps"]
        assert (runner_wrap["by"], runner_wrap["is_ddp"]) == ("runner", False)
        assert (script_wrap["by"], script_wrap["device_ids"]) == ("script", None)
        assert script_wrap["script_line"]["line"] == 24
        assert rank["wrapper"]["type"] == "MMDistributedDataParallel"
        assert rank["stopped_at"] == "Runner.train"


# --- the probe keeps the script's import order ---------------------------------------------


def test_a_device_plugin_imported_first_still_comes_before_torch_and_mmengine(
    tmp_path: Path,
) -> None:
    result = entry(
        "train_plugin_first.py", CONFIG, "--work-dir", tmp_path, options=("--world-size", "1"),
    )
    # fake_gcu_plugin raises if torch or mmengine was imported before it.
    assert "imported before the device plug-in" not in result.stdout
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "stopped at Runner.train: no training step ran" in result.stdout


def test_each_rank_runs_the_script_as_main_with_its_arguments_exactly_and_torchruns_variables(
    tmp_path: Path,
) -> None:
    arguments = (str(tmp_path), "--", "two words", "--cfg-options", "a=[1, 2]", "")
    script = SCRIPTS / "argv_echo.py"
    result = entry(script, *arguments, options=("--target", "t20-gcu"), cwd=tmp_path)
    # It wraps nothing: there is nothing to show, but it ran as torchrun would have run it.
    assert result.exit_code == 2, result.stdout + result.stderr
    seen = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    ports = {rank_seen["env"]["MASTER_PORT"] for rank_seen in seen}
    assert len(ports) == 1 and ports != {None}
    for rank, rank_seen in enumerate(seen):
        assert rank_seen["argv"] == list(arguments)
        assert rank_seen["cwd"] == str(tmp_path)
        assert rank_seen["path0"] == str(SCRIPTS)
        assert rank_seen["file"] == str(SCRIPTS / "argv_echo.py")
        # The probe imported neither torch nor mmengine before the script.
        assert rank_seen["imported"] == []
        assert rank_seen["env"] == {
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "WORLD_SIZE": "2",
            "LOCAL_WORLD_SIZE": "2",
            "GROUP_RANK": "0",
            "ROLE_RANK": str(rank),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": rank_seen["env"]["MASTER_PORT"],
            # t20-gcu hosts resolve 'cpu': so do the ranks, CUDA or not.
            "CUDA_VISIBLE_DEVICES": "",
            "TORCHELASTIC_USE_AGENT_STORE": "False",
        }


# --- what cannot be run ------------------------------------------------------------------


def test_a_script_failing_before_any_wrap_with_no_rule_for_it_exits_2_and_says_which() -> None:
    result = entry("crashes_before_wrap.py", CONFIG, options=("--world-size", "1"))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (
        "error: the script failed before any wrap (rank 0): FileNotFoundError: [Errno 2] No "
        "such file or directory: 'no/such/class_names.txt' (crashes_before_wrap.py:13)"
    )
    assert "Traceback" not in result.stdout + result.stderr


def test_a_script_ending_before_any_wrap_exits_2_and_what_it_started_is_killed() -> None:
    result = entry("leaves_a_child.py", options=("--target", "t20-gcu", "--world-size", "1"))
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (
        "error: the script called sys.exit(0) before any model wrap (rank 0): there is no "
        "wrap to show"
    )
    assert _gone("cfglint-entry-left-behind")


def _gone(marker: str, within_s: float = 10.0) -> bool:
    """Whether no process's command line holds `marker` (SIGKILL is delivered asynchronously:
    a killed process is listed until it has died)."""
    deadline = time.monotonic() + within_s
    while True:
        if not processes_mentioning(marker):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_a_hung_script_is_killed_at_the_timeout_and_reported(tmp_path: Path) -> None:
    # The ranks mark the script's phase before running it, and the script is asleep within a
    # second on an idle machine (it imports mmengine.config, not torch): 5 s leaves room for
    # a loaded one.
    started = time.monotonic()
    result = entry("hangs_before_runner.py", CONFIG, options=("--timeout", "5"))
    assert time.monotonic() - started < 60
    assert result.exit_code == 1, result.stdout + result.stderr
    for rank in (0, 1):
        assert (
            f"rank {rank}: LOST: hung in script (the script's own code, before the Runner): "
            "no result after 5 s (--timeout 5): killed"
        ) in result.stdout
    assert probe_processes_for("hangs_before_runner.py") == []


def test_ctrl_c_kills_every_rank(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [
            sys.executable,
            *("-m", "cfglint", "dryrun", "--entry", "hangs_before_runner.py", "--", CONFIG),
        ],
        cwd=SCRIPTS,
        env=environment(TMPDIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(probe_processes_for("hangs_before_runner.py")) < 2:
        assert time.monotonic() < deadline, "the ranks never started"
        time.sleep(0.1)
    parent.send_signal(signal.SIGINT)
    assert parent.wait(timeout=30) == 128 + signal.SIGINT
    assert probe_processes_for("hangs_before_runner.py") == []
    assert list(tmp_path.glob("cfglint-*")) == []
    assert parent.stderr is not None
    assert "stopped by SIGINT: every rank was killed" in parent.stderr.read().decode()


# --- usage errors: nothing runs ------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ("--entry", "no/such/train.py", "--", CONFIG),
            "no/such/train.py: no such entry script",
        ),
        (
            ("--entry", "configs", "--", CONFIG),
            "configs: is a directory, not an entry script",
        ),
        (
            ("--entry", "train_gcu_8card.py", CONFIG),
            "--entry takes no CONFIG (configs/toy_t20_gcu.py): pass the script's own arguments "
            "after `--`, e.g. cfglint dryrun --entry train_gcu_8card.py -- configs/toy_t20_gcu.py",
        ),
        (
            ("--entry", "train_gcu_8card.py", "--launcher", "pytorch", "--", CONFIG),
            "--launcher is for a config dry run: with --entry the script decides; pass the "
            "script's own option after `--`, e.g. -- CONFIG --launcher pytorch",
        ),
        ((), "dryrun needs a CONFIG, or --entry SCRIPT (with its ARGS after --)"),
        (
            (CONFIG, "--", "--launcher", "pytorch"),
            "arguments after `--` are an entry script's: pass --entry SCRIPT, or leave them "
            "out for a config dry run",
        ),
        (
            ("--entry", "train_gcu_8card.py", "--", "--launcher", "pytorch"),
            "train_gcu_8card.py: no target for this entry script: pass --target NAME, or its "
            "config (a .py/.yaml/.yml/.json file that declares a target) among the script's "
            "arguments after `--`; `cfglint targets` lists the names",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line_before_anything_runs(
    arguments: tuple[str, ...], message: str
) -> None:
    result = run_cli("dryrun", *arguments, cwd=SCRIPTS, env=environment())
    assert result.exit_code == 2
    assert result.stderr.strip() == f"cfglint: error: {message}"
    assert result.stdout == ""


def test_a_config_among_the_arguments_without_a_target_is_the_usual_no_target_error(
    tmp_path: Path,
) -> None:
    config = tmp_path / "job.py"
    config.write_text("model = dict(type='ToyClassifier')\n")
    script = tmp_path / "train.py"
    script.write_text("raise SystemExit('must not run')\n")
    result = run_cli("dryrun", "--entry", script, "--", config, cwd=tmp_path, env=environment())
    assert result.exit_code == 2
    assert result.stderr.startswith(f"cfglint: error: {config}: no target for this config")
    assert "this executes" not in result.stderr


def test_target_on_the_command_line_beats_the_configs(tmp_path: Path) -> None:
    result = entry(
        "train_gcu_8card_fixed.py", CONFIG, "--launcher", "pytorch", "--work-dir", tmp_path,
        options=("--target", "cpu", "--world-size", "1", "--json"),
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["target"] == {"name": "cpu", "device": "cpu"}
    assert report["warnings"] == []


def test_without_the_dryrun_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO_ROOT}")
    # A fresh interpreter, where the sitecustomize runs.
    result = run_cli_in_a_process(
        "dryrun", "--entry", "train_gcu_8card.py", "--", CONFIG, cwd=SCRIPTS, env=env
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "cfglint: error: the dry run needs torch, which is not installed: "
        "pip install 'cfglint[dryrun]'"
    ]


def test_the_examples_launch_fails_on_every_rank_then_passes_after_cfglint_fix(
    tmp_path: Path,
) -> None:
    """The README's flow on a copy of the examples: the team's script overwrites the wrapper."""
    project = tmp_path / "examples"
    shutil.copytree(EXAMPLES, project, ignore=shutil.ignore_patterns("__pycache__", "work_dirs"))
    script = "scripts/train_distributed_8card_gcu.py"
    args = ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py", "--launcher", "pytorch")
    env = dict(os.environ, PYTHONPATH=".")
    before = entry(script, *args, cwd=project, env=env)
    assert before.exit_code == 1, before.stdout + before.stderr
    for rank, block in rank_blocks(before.stdout).items():
        assert DDP_ERROR.format(rank=rank) in block
    fixed = run_cli("fix", "scripts/start_8card_training.sh", cwd=project)
    assert "Fixed 3 errors." in fixed.stdout, fixed.stdout + fixed.stderr
    after = entry(script, *args, cwd=project, env=env)
    assert after.exit_code == 0, after.stdout + after.stderr
    assert CPU_WARNING in after.stdout
    assert "stopped at Runner.train: no training step ran" in after.stdout
