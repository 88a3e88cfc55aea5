"""A dry run asks for no more ranks than this host has CUDA devices for, before starting any:
each rank takes the device of its LOCAL_RANK, and one without a device would die while the
others wait for it. The count is torch's; a stand-in torch here says how many devices there are
(this machine has none)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT, run_cli

from cfglint.dryrun import TargetView
from cfglint.dryrun.visible import cuda_device_count, too_few_devices
from cfglint.targets import load_target

CONFIG = Path(__file__).resolve().parent / "configs" / "fixed_t20_gcu_8card.py"
CUDA = TargetView.of(load_target("cuda"))
T20 = TargetView.of(load_target("t20-gcu"))


def _torch_with(folder: Path, devices: int) -> dict[str, str]:
    """An environment whose `torch` reports `devices` CUDA devices (and can do nothing else)."""
    package = folder / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"class cuda:\n    @staticmethod\n    def device_count():\n        return {devices}\n",
        encoding="utf-8",
    )
    return dict(os.environ, PYTHONPATH=f"{folder}{os.pathsep}{REPO_ROOT}")


def test_more_ranks_than_cuda_devices_is_refused_before_any_rank_starts(tmp_path: Path) -> None:
    env = _torch_with(tmp_path, 1)
    result = run_cli("dryrun", CONFIG, "--target", "cuda", "--world-size", "2", env=env)
    assert (result.exit_code, result.stdout) == (2, "")
    # One line, and no "this executes ...": nothing was started.
    assert result.stderr == (
        "cfglint: error: --world-size 2 needs a CUDA device per rank, but 1 device is visible "
        "here (torch.cuda.device_count()): rank 1 would set a device that does not exist; use "
        "--world-size 1, or a host with 2 devices\n"
    )


def test_an_entry_script_dry_run_is_refused_the_same_way(tmp_path: Path) -> None:
    env = _torch_with(tmp_path, 2)
    result = run_cli(
        "dryrun",
        "--entry",
        "scripts/train_distributed_8card_gcu.py",
        "--target",
        "cuda",
        "--world-size",
        "3",
        "--",
        "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py",
        cwd=EXAMPLES,
        env=env,
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "cfglint: error: --world-size 3 needs a CUDA device per rank, but 2 devices are visible"
    )


@pytest.mark.parametrize(
    ("devices", "world_size", "target"),
    [(2, 2, CUDA), (0, 2, CUDA), (1, 2, T20)],
    ids=["enough", "no-cuda-here", "cuda-hidden-for-the-target"],
)
def test_ranks_that_each_get_a_device_or_see_no_cuda_are_started(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    devices: int,
    world_size: int,
    target: TargetView,
) -> None:
    env = _torch_with(tmp_path, devices)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    assert too_few_devices(world_size, target) is None


def _version_file(folder: Path, cuda: str, hip: str = "None") -> None:
    (folder / "torch" / "version.py").write_text(
        f"from typing import Optional\n__version__ = '2.13.0'\ncuda: Optional[str] = {cuda}\n"
        f"hip: Optional[str] = {hip}\n",
        encoding="utf-8",
    )


def test_a_torch_built_without_cuda_is_counted_without_importing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Importing torch takes seconds: a build whose version file says it has neither CUDA nor
    ROCm has no CUDA device, and is not imported to say so (this stand-in fails if it is)."""
    env = _torch_with(tmp_path, 3)
    (tmp_path / "torch" / "__init__.py").write_text("raise SystemExit('imported')\n")
    _version_file(tmp_path, "None")
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    assert cuda_device_count() == 0


@pytest.mark.parametrize(("cuda", "hip"), [("'12.1'", "None"), ("None", "'6.0.32830'")])
def test_a_torch_built_with_cuda_or_rocm_counts_its_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cuda: str, hip: str
) -> None:
    env = _torch_with(tmp_path, 3)
    _version_file(tmp_path, cuda, hip)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    assert cuda_device_count() == 3


def test_the_torch_installed_here_is_counted_as_torch_counts() -> None:
    """This machine's CPU build of torch: the version file's answer is torch's own."""
    torch = pytest.importorskip("torch")
    assert cuda_device_count() == torch.cuda.device_count()
