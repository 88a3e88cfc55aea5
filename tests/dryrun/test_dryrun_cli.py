"""`cfglint dryrun` through the command line, with real rank processes (a few seconds each)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    EXAMPLES,
    REPO_ROOT,
    CliResult,
    run_cli,
    run_cli_in_a_process,
    run_cli_on_a_terminal,
)

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
SEED_001 = EXAMPLES / "configs" / "dinov3" / "train_dinov3_mmrs1m_t20_gcu_8card.py"
SEED_000 = EXAMPLES / "configs" / "dinov3" / "train_dinov3_mmrs1m_t20_gcu_8card_ddp.py"
FIXED = CONFIGS / "fixed_t20_gcu_8card.py"

DDP_ERROR = (
    "ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
    "single-device/multiple-device GPU modules or CPU modules, but got device_ids [{rank}], "
    "output_device {output}, and module parameters {{device(type='cpu')}}."
)


def dryrun(*args: str | Path, cwd: Path = EXAMPLES, env: dict[str, str] | None = None) -> CliResult:
    return run_cli("dryrun", *args, cwd=cwd, env=env)


def rank_blocks(stdout: str) -> dict[int, str]:
    """The text of each `rank N ...` block of the text report."""
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


def worker_processes_for(config: Path) -> list[int]:
    """Live processes running a dry-run rank on this config (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if "cfglint.dryrun.worker" in command and str(config) in command:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("target", ["cpu", "t20-gcu"])
def test_seed_001_config_fails_on_every_rank_with_mmengines_ddp_error_mapped_to_cl201(
    target: str,
) -> None:
    # t20-gcu comes from examples/pyproject.toml's `targets` table, not from the command line.
    result = dryrun(SEED_001, *(["--target", target] if target == "cpu" else []))
    assert result.exit_code == 1, result.stderr
    assert f"dry run for target {target} " in result.stdout.splitlines()[0]
    assert "this executes" in result.stderr.splitlines()[0]
    blocks = rank_blocks(result.stdout)
    assert sorted(blocks) == [0, 1]
    for rank, block in blocks.items():
        assert f"rank {rank} (LOCAL_RANK {rank}): FAILED in wrap" in block
        assert DDP_ERROR.format(rank=rank, output="None") in block
        assert "-> CL201 catches this statically" in block
        assert "parameters: {cpu}  buffers: {cpu}" in block


def test_seed_000_config_with_output_device_maps_to_cl201_and_cl202() -> None:
    result = dryrun(SEED_000, "--target", "t20-gcu", "--world-size", "1", "--json")
    assert result.exit_code == 1, result.stderr
    (rank,) = json.loads(result.stdout)["ranks"]
    assert f"ValueError: {rank['error']['message']}" == DDP_ERROR.format(rank=0, output="0")
    assert [hit["code"] for hit in rank["rules"]] == ["CL201", "CL202"]


def test_fixed_config_for_cpu_wraps_on_every_rank_and_exits_0() -> None:
    result = dryrun(FIXED, "--target", "cpu", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["warnings"] == [] and report["problems"] == []
    assert [rank["rank"] for rank in report["ranks"]] == [0, 1]
    for rank in report["ranks"]:
        assert rank["status"] == "ok"
        assert rank["mmengine_device"] == "cpu"
        assert rank["parameter_devices"] == ["cpu"] and rank["buffer_devices"] == ["cpu"]
        assert rank["wrapper"] == {
            "type": "MMDistributedDataParallel",
            "device_ids": None,
            "output_device": None,
            "is_ddp": True,
        }
        assert rank["import_paths"][0] == str(EXAMPLES)
        # A CPU host resolves 'cpu' even where the host has CUDA: the ranks never see it.
        assert rank["cuda_visible_devices"] == ""
        assert rank["configured_device_ids"] == "None"
        assert rank["process_exit_code"] == 0
        assert "schema" not in rank


@pytest.fixture(scope="module")
def fixed_t20_on_a_terminal(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, str]:
    """`cfglint dryrun FIXED --target t20-gcu > report.txt` typed at a terminal (two ranks),
    for the report and for where the progress goes: the exit code, what the terminal showed
    (stderr) and the report (stdout)."""
    out = tmp_path_factory.mktemp("terminal") / "out.txt"
    return run_cli_on_a_terminal(
        "dryrun", FIXED, "--target", "t20-gcu", cwd=EXAMPLES, stdout_file=out
    )


def test_fixed_config_for_t20_exits_0_and_warns_that_training_would_run_on_cpu(
    fixed_t20_on_a_terminal: tuple[int, str, str],
) -> None:
    exit_code, drawn, report = fixed_t20_on_a_terminal
    assert exit_code == 0, report + drawn
    for rank, block in rank_blocks(report).items():
        assert f"rank {rank} (LOCAL_RANK {rank}): wrapped" in block
        assert "parameters: {cpu}" in block
        assert "wrapper: MMDistributedDataParallel (device_ids=None, output_device=None)" in block
    assert (
        "warning: the parameters end on the CPU for target t20-gcu (device 'gcu'): "
        "training would run on the CPU"
    ) in report
    assert "without `torch_gcu.transfer_to_gcu` imported before mmengine it resolves 'cpu'" in (
        report
    )
    assert "'gcu'" not in report.split("parameters:")[1].splitlines()[0]


def test_progress_goes_to_a_terminal_on_stderr_and_stdout_keeps_only_the_report(
    fixed_t20_on_a_terminal: tuple[int, str, str],
) -> None:
    exit_code, drawn, report = fixed_t20_on_a_terminal
    assert exit_code == 0, drawn + report
    assert report.startswith(f"{FIXED}: dry run for target t20-gcu"), report[:200]
    assert "dry run: ranks finished" in drawn


def test_launcher_pytorch_reports_init_dist_failure_mapped_to_cl102() -> None:
    result = dryrun(SEED_001, "--target", "t20-gcu", "--launcher", "pytorch", "--json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["notes"][0].startswith("path: each rank went through mmengine.dist.init_dist")
    for rank in report["ranks"]:
        assert rank["phase"] == "setup_env" and rank["dist_path"] == "init_dist"
        functions = [frame["function"] for frame in rank["error"]["frames"]]
        assert functions[-3:-1] == ["init_dist", "_init_dist_pytorch"]
        assert [hit["code"] for hit in rank["rules"]] == ["CL102"]


def test_a_runner_named_with_its_registry_scope_is_mmengines_runner() -> None:
    result = dryrun(CONFIGS / "scoped_runner.py", "--target", "cpu", "--world-size", "1")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "rank 0 (LOCAL_RANK 0): wrapped" in result.stdout


def test_launcher_none_places_the_model_without_a_wrapper() -> None:
    result = dryrun(FIXED, "--target", "cpu", "--launcher", "none", "--world-size", "1")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "rank 0 (LOCAL_RANK 0): placed (not wrapped)" in result.stdout
    assert "wrapper: none" in result.stdout


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "missing_custom_import.py",
            "the config failed to load (rank 0): ImportError: Failed to import custom modules",
        ),
        ("unknown_model.py", "the model failed to build (rank 0): KeyError"),
        # Runner.__init__ hands the top-level data_preprocessor to the model, as here.
        (
            "unknown_data_preprocessor.py",
            "the model failed to build (rank 0): KeyError: 'NoSuchPreprocessor is not in the "
            "mmengine::model registry",
        ),
        (
            "exits_while_loading.py",
            "the config failed to load (rank 0): SystemExit: 0 (sys.exit() or raise SystemExit "
            "in the config's code ended the load step)",
        ),
        (
            "exits_while_building.py",
            "the model failed to build (rank 0): SystemExit: 3 (sys.exit() or raise SystemExit "
            "in the model's code ended the build step)",
        ),
        (
            "flexible_runner.py",
            "dryrun cannot run this config: runner_type='FlexibleRunner': FlexibleRunner "
            "configs are not supported by dryrun yet",
        ),
        (
            "scoped_flexible_runner.py",
            "dryrun cannot run this config: runner_type='mmengine.FlexibleRunner': "
            "FlexibleRunner configs are not supported by dryrun yet",
        ),
    ],
)
def test_load_and_build_errors_exit_2_with_a_clear_line(config: str, message: str) -> None:
    result = dryrun(CONFIGS / config, "--target", "cpu", "--world-size", "1", cwd=CONFIGS)
    assert result.exit_code == 2
    assert f"error: {message}" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_hung_rank_and_the_rank_waiting_for_it_are_told_apart_and_reaped() -> None:
    config = CONFIGS / "hangs_on_rank_1.py"
    started = time.monotonic()
    result = dryrun(config, "--target", "cpu", "--timeout", "12", cwd=CONFIGS)
    assert time.monotonic() - started < 40
    assert result.exit_code == 1, result.stdout + result.stderr
    assert (
        "rank 0: LOST: waiting in wrap (Runner.wrap_model; DDP's constructor syncs with every "
        "rank) for rank(s) 1, which never got there; no result after 12 s (--timeout 12): "
        "killed"
    ) in result.stdout
    assert (
        "rank 1: LOST: hung in build (Runner.build_model, the model's own __init__): no result "
        "after 12 s (--timeout 12): killed"
    ) in result.stdout
    assert worker_processes_for(config) == []


def test_a_rank_that_dies_while_building_is_a_build_error_with_its_log() -> None:
    result = dryrun(
        CONFIGS / "dies_while_building.py", "--target", "cpu", "--world-size", "1", cwd=CONFIGS
    )
    assert result.exit_code == 2
    assert (
        "rank 0: LOST: died in build (Runner.build_model, the model's own __init__): exited "
        "with code 3 without a result"
    ) in result.stdout
    assert "| rank going down hard" in result.stdout


def test_a_thread_left_running_does_not_hold_a_finished_rank() -> None:
    started = time.monotonic()
    result = dryrun(
        CONFIGS / "leaves_a_thread_running.py",
        *("--target", "cpu", "--world-size", "1", "--timeout", "120"),
        cwd=CONFIGS,
    )
    assert result.exit_code == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 60


def _start_hung_run(world_size: int, tmp_path: Path, *wrapper: str) -> subprocess.Popen[bytes]:
    config = CONFIGS / "hangs_while_building.py"
    parent = subprocess.Popen(
        [
            *wrapper,
            sys.executable,
            *("-m", "cfglint", "dryrun", str(config), "--target", "cpu"),
            *("--world-size", str(world_size)),
        ],
        cwd=CONFIGS,
        env=dict(os.environ, TMPDIR=str(tmp_path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(worker_processes_for(config)) < world_size and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(worker_processes_for(config)) == world_size
    return parent


def _gone(config: Path, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while worker_processes_for(config) and time.monotonic() < deadline:
        time.sleep(0.1)
    return worker_processes_for(config) == []


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP])
def test_a_stop_signal_reaps_every_rank_and_the_temporary_folder(
    stop: signal.Signals, tmp_path: Path
) -> None:
    parent = _start_hung_run(1, tmp_path)
    parent.send_signal(stop)
    assert parent.wait(timeout=30) == 128 + stop
    assert worker_processes_for(CONFIGS / "hangs_while_building.py") == []
    assert list(tmp_path.glob("cfglint-dryrun-*")) == []
    assert parent.stderr is not None
    assert f"stopped by {stop.name}: every rank was killed" in parent.stderr.read().decode()


@pytest.mark.skipif(shutil.which("timeout") is None, reason="needs coreutils' timeout")
def test_a_ci_cancel_through_timeout_reaps_every_rank_and_the_temporary_folder(
    tmp_path: Path,
) -> None:
    # What a CI runner does on cancel: SIGTERM to the command, here from coreutils' timeout.
    # Its timer fires as a SIGALRM to itself; sent once every rank is up, the cancel comes
    # without waiting out the time limit (which stays as a backstop).
    parent = _start_hung_run(2, tmp_path, "timeout", "30")
    os.kill(parent.pid, signal.SIGALRM)
    assert parent.wait(timeout=60) == 124
    assert worker_processes_for(CONFIGS / "hangs_while_building.py") == []
    assert list(tmp_path.glob("cfglint-dryrun-*")) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ranks_die_with_a_killed_launcher(tmp_path: Path) -> None:
    parent = _start_hung_run(1, tmp_path)
    parent.kill()  # SIGKILL: no handler of the launcher runs
    parent.wait(timeout=30)
    assert _gone(CONFIGS / "hangs_while_building.py", within_s=10)


def test_without_the_dryrun_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    # A sitecustomize that hides torch, as if the light core were installed alone.
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO_ROOT}")
    # A fresh interpreter, where the sitecustomize runs.
    result = run_cli_in_a_process("dryrun", SEED_001, "--target", "cpu", cwd=EXAMPLES, env=env)
    assert result.exit_code == 2
    # One line: nothing claims to execute the config when nothing will.
    assert result.stderr.splitlines() == [
        "cfglint: error: the dry run needs torch, which is not installed: "
        "pip install 'cfglint[dryrun]'"
    ]


def test_a_missing_config_is_a_usage_error() -> None:
    result = dryrun("no/such/config.py", "--target", "cpu")
    assert result.exit_code == 2
    assert result.stderr.strip() == "cfglint: error: no/such/config.py: no such config file"


def test_a_folder_is_not_a_config_file() -> None:
    result = dryrun("configs", "--target", "cpu")
    assert result.exit_code == 2
    assert result.stderr.strip() == "cfglint: error: configs: is a directory, not a config file"


@pytest.mark.parametrize("timeout", ["inf", "nan", "0", "-5", "86401"])
def test_a_timeout_that_is_not_a_sane_number_of_seconds_is_a_usage_error(timeout: str) -> None:
    result = dryrun(SEED_001, "--target", "cpu", "--timeout", timeout)
    assert result.exit_code == 2
    assert "--timeout: must be a number of seconds more than 0 and at most 86400" in (
        result.stderr
    )
    assert "this executes" not in result.stderr


@pytest.mark.skipif(Path("/dev/nvidiactl").exists(), reason="this host has CUDA")
def test_a_cuda_config_on_a_host_without_cuda_blames_the_host_not_a_rule() -> None:
    config = EXAMPLES / "configs" / "cuda" / "train_toy_cuda_8card.py"
    result = dryrun(config, "--world-size", "1")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "dry run for target cuda " in result.stdout
    assert "CL201" not in result.stdout and "catches this statically" not in result.stdout
    assert "training would run on the CPU" not in result.stdout
    assert (
        "error: rank(s) 0: the wrap failure (ValueError) comes from running a 'cuda' config on "
        "a host without a 'cuda' device (MMEngine resolved 'cpu' here, 'cuda' on a cuda host)"
    ) in result.stdout


def test_a_config_without_a_target_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    config = tmp_path / "job.py"
    config.write_text("model = dict(type='ToyClassifier')\n")
    result = dryrun(config, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"cfglint: error: {config}: no target for this config")
    assert "this executes" not in result.stderr
