"""`cfglint dryrun` through the command line, with real rank processes (a few seconds each)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT, CliResult, run_cli

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


def test_fixed_config_for_t20_exits_0_and_warns_that_training_would_run_on_cpu() -> None:
    result = dryrun(FIXED, "--target", "t20-gcu")
    assert result.exit_code == 0, result.stdout + result.stderr
    for rank, block in rank_blocks(result.stdout).items():
        assert f"rank {rank} (LOCAL_RANK {rank}): wrapped" in block
        assert "parameters: {cpu}" in block
        assert "wrapper: MMDistributedDataParallel (device_ids=None, output_device=None)" in block
    assert (
        "warning: the parameters end on the CPU for target t20-gcu (device 'gcu'): "
        "training would run on the CPU"
    ) in result.stdout
    assert "without `torch_gcu.transfer_to_gcu` imported before mmengine it resolves 'cpu'" in (
        result.stdout
    )
    assert "'gcu'" not in result.stdout.split("parameters:")[1].splitlines()[0]


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
    ],
)
def test_load_and_build_errors_exit_2_with_a_clear_line(config: str, message: str) -> None:
    result = dryrun(CONFIGS / config, "--target", "cpu", "--world-size", "1", cwd=CONFIGS)
    assert result.exit_code == 2
    assert f"error: {message}" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_hung_rank_is_killed_at_the_timeout_and_reaped() -> None:
    config = CONFIGS / "hangs_while_building.py"
    started = time.monotonic()
    result = dryrun(config, "--target", "cpu", "--timeout", "6", cwd=CONFIGS)
    assert time.monotonic() - started < 30
    assert result.exit_code == 1
    assert "rank 0: LOST: no result after 6 s: killed (a hung rank, see --timeout)" in (
        result.stdout
    )
    assert worker_processes_for(config) == []


def test_a_rank_that_dies_is_reported_with_its_log() -> None:
    result = dryrun(
        CONFIGS / "dies_while_building.py", "--target", "cpu", "--world-size", "1", cwd=CONFIGS
    )
    assert result.exit_code == 1
    assert "rank 0: LOST: exited with code 3 without a result" in result.stdout
    assert "| rank going down hard" in result.stdout


def test_ctrl_c_reaps_every_rank() -> None:
    config = CONFIGS / "hangs_while_building.py"
    parent = subprocess.Popen(
        [sys.executable, "-m", "cfglint", "dryrun", str(config), "--target", "cpu"],
        cwd=CONFIGS,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while len(worker_processes_for(config)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(worker_processes_for(config)) == 2
    parent.send_signal(signal.SIGINT)
    assert parent.wait(timeout=20) == 130
    assert worker_processes_for(config) == []


def test_without_the_dryrun_extra_it_says_how_to_install_it(tmp_path: Path) -> None:
    # A sitecustomize that hides torch, as if the light core were installed alone.
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{REPO_ROOT}")
    result = dryrun(SEED_001, "--target", "cpu", env=env)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "cfglint: error: the dry run needs torch, which is not installed: "
        "pip install 'cfglint[dryrun]'"
    )


def test_a_missing_config_is_a_usage_error() -> None:
    result = dryrun("no/such/config.py", "--target", "cpu")
    assert result.exit_code == 2
    assert result.stderr.strip() == "cfglint: error: no/such/config.py: no such config file"


def test_a_config_without_a_target_is_a_usage_error_before_anything_runs(tmp_path: Path) -> None:
    config = tmp_path / "job.py"
    config.write_text("model = dict(type='ToyClassifier')\n")
    result = dryrun(config, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"cfglint: error: {config}: no target for this config")
    assert "this executes" not in result.stderr
