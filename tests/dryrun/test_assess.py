"""The report's judgement from rank results, with fake device sets where this host has none.

Every (host device, target device) pair is judged here from constructed results: this host has
no GPU, so the CLI tests cover only the CPU host.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from cfglint.dryrun.assess import DryRunReport, TargetView, assess
from cfglint.dryrun.launch import rank_environment
from cfglint.dryrun.render_text import render_text
from cfglint.dryrun.result import (
    Frame,
    LostRank,
    Phase,
    RankError,
    RankOutcome,
    RankResult,
    WrapperInfo,
)
from cfglint.targets import load_target

CONFIG = Path("configs/job.py")
CPU = TargetView.of(load_target("cpu"))
CUDA = TargetView.of(load_target("cuda"))
T20 = TargetView.of(load_target("t20-gcu"))
NPU = TargetView("npu-box", "npu", host_device="npu")

DDP_ERROR = (
    "DistributedDataParallel device_ids and output_device arguments only work with "
    "single-device/multiple-device GPU modules or CPU modules, but got device_ids [{rank}], "
    "output_device None, and module parameters {{device(type='cpu')}}."
)
INIT_DIST_FRAMES = (
    Frame("mmengine/runner/runner.py", 676, "setup_env"),
    Frame("mmengine/dist/utils.py", 67, "init_dist"),
    Frame("mmengine/dist/utils.py", 115, "_init_dist_pytorch"),
    Frame("torch/cuda/__init__.py", 567, "set_device"),
)


def wrapped(
    rank: int,
    built: tuple[str, ...],
    placed: tuple[str, ...],
    device: str = "cuda",
    device_ids: tuple[int | str, ...] | None = None,
    configured: str | None = "None",
) -> RankResult:
    return RankResult(
        rank=rank,
        local_rank=rank,
        world_size=2,
        phase="done",
        dist_path="entry-point",
        mmengine_device=device,
        built_parameter_devices=built,
        parameter_devices=placed,
        buffer_devices=placed,
        configured_device_ids=configured,
        wrapper=WrapperInfo("MMDistributedDataParallel", device_ids, None, is_ddp=True),
    )


def failed(rank: int, error: RankError, device: str | None = "cpu") -> RankResult:
    return RankResult(
        rank=rank,
        local_rank=rank,
        world_size=2,
        phase=error.phase,
        dist_path="entry-point",
        mmengine_device=device,
        error=error,
    )


def ddp_refused(rank: int) -> RankResult:
    return failed(rank, RankError("wrap", "ValueError", DDP_ERROR.format(rank=rank)))


def init_dist_failed(rank: int) -> RankResult:
    error = RankError(
        "setup_env",
        "AttributeError",
        "module 'torch._C' has no attribute '_cuda_setDevice'",
        INIT_DIST_FRAMES,
    )
    return failed(rank, error)


def judge(target: TargetView, *outcomes: RankOutcome) -> tuple[DryRunReport, str]:
    report = assess(CONFIG, target, len(outcomes), "entry-point", outcomes)
    return report, render_text(report)


def cpu_ranks(target: TargetView) -> tuple[RankResult, RankResult]:
    return (
        wrapped(0, ("cpu",), ("cpu",), device="cpu"),
        wrapped(1, ("cpu",), ("cpu",), device="cpu"),
    )


# --- each (host, target) pair -------------------------------------------------------------


def test_cpu_host_cpu_target_wrapped_is_ok_without_warnings() -> None:
    report, text = judge(CPU, *cpu_ranks(CPU))
    assert report.exit_code == 0
    assert report.warnings == () and report.problems == () and report.errors == ()
    assert "note: host: MMEngine resolved 'cpu', the device of target cpu" in text


def test_cpu_host_t20_target_shows_the_t20_path_and_warns_about_cpu_training() -> None:
    report, text = judge(T20, *cpu_ranks(T20))
    assert report.exit_code == 0
    assert (
        "on a t20-gcu host without `torch_gcu.transfer_to_gcu` imported before mmengine it "
        "resolves 'cpu' too, so the wrap path shown is the one the t20-gcu job runs"
    ) in text
    assert report.warnings == (
        "the parameters end on the CPU for target t20-gcu (device 'gcu'): training would run "
        "on the CPU",
    )


@pytest.mark.parametrize("target", [CPU, T20])
def test_cpu_host_seed_failure_maps_to_cl201_for_targets_that_have_it(target: TargetView) -> None:
    report, text = judge(target, ddp_refused(0), ddp_refused(1))
    assert report.exit_code == 1
    assert [hit.code for hit in report.rule_hits[0]] == ["CL201"]
    assert "problem: rank 1: wrap failed with ValueError (CL201)" in text


@pytest.mark.parametrize("target", [CPU, T20])
def test_cpu_host_init_dist_failure_maps_to_cl102_for_targets_that_have_it(
    target: TargetView,
) -> None:
    report, _ = judge(target, init_dist_failed(0), init_dist_failed(1))
    assert report.exit_code == 1
    assert [hit.code for hit in report.rule_hits[1]] == ["CL102"]


def test_cpu_host_cuda_target_wrapped_is_ok_but_does_not_claim_cpu_training() -> None:
    report, text = judge(CUDA, *cpu_ranks(CUDA))
    assert report.exit_code == 0
    assert report.warnings == ()
    assert "training would run on the CPU" not in text
    assert (
        "note: placement: the parameters are on the CPU here because this host has no 'cuda'; "
        "on a cuda host MMEngine resolves 'cuda' and Runner.wrap_model moves them there, "
        "which this host cannot show"
    ) in text


@pytest.mark.parametrize("failure", [ddp_refused, init_dist_failed])
def test_cpu_host_cuda_target_device_failure_blames_the_host_and_names_no_rule(
    failure: Callable[[int], RankResult],
) -> None:
    report, text = judge(CUDA, failure(0), failure(1))
    assert report.exit_code == 2
    assert report.rule_hits == {0: (), 1: ()}
    assert "catches this statically" not in text and "CL201" not in text
    (error,) = report.errors
    assert error.startswith("rank(s) 0, 1: the ")
    assert (
        "comes from running a 'cuda' config on a host without a 'cuda' device (MMEngine "
        "resolved 'cpu' here, 'cuda' on a cuda host): this host cannot show whether the cuda "
        "job's wrap succeeds"
    ) in error


def test_cpu_host_cuda_target_failure_of_the_config_itself_stays_a_failure() -> None:
    bad_sync_bn = RankError("wrap", "ValueError", 'sync_bn should be "torch" or "mmcv"')
    report, text = judge(CUDA, failed(0, bad_sync_bn))
    assert report.exit_code == 1
    assert "problem: rank 0: wrap failed with ValueError\n" in text


def test_cuda_host_cuda_target_on_the_rank_devices_is_ok() -> None:
    report, _ = judge(
        CUDA,
        wrapped(0, ("cpu",), ("cuda:0",), device_ids=(0,), configured=None),
        wrapped(1, ("cpu",), ("cuda:1",), device_ids=(1,), configured=None),
    )
    assert report.exit_code == 0
    assert report.warnings == () and report.problems == ()


def test_cuda_host_cuda_target_parameters_off_the_device_exit_1() -> None:
    report, text = judge(CUDA, wrapped(0, ("cpu",), ("cpu",)))
    assert report.exit_code == 1
    assert "problem: rank 0: parameters on {cpu}, not on the target's 'cuda'" in text
    assert "warning: the parameters end on the CPU for target cuda" in text


@pytest.mark.parametrize("target", [T20, CPU])
def test_a_host_resolving_cuda_cannot_pass_a_target_whose_host_resolves_cpu(
    target: TargetView,
) -> None:
    # What the unfixed seed config shows on a GPU machine if CUDA were not hidden: it wraps.
    report, text = judge(
        target,
        wrapped(0, ("cpu",), ("cuda:0",), device_ids=(0,), configured=None),
        wrapped(1, ("cpu",), ("cuda:1",), device_ids=(1,), configured=None),
    )
    assert report.exit_code == 2
    assert (
        f"error: this host resolved 'cuda', while a {target.name} host resolves 'cpu': the wrap "
        f"shown is not the {target.name} job's path, so dryrun cannot judge it on this host"
    ) in text
    assert "ok:" not in text


def test_a_host_with_cuda_is_hidden_for_targets_whose_host_resolves_cpu() -> None:
    assert CPU.host_resolves == "cpu" and T20.host_resolves == "cpu"
    assert CUDA.host_resolves == "cuda"
    assert rank_environment(0, 2, 29500, hide_cuda=True)["CUDA_VISIBLE_DEVICES"] == ""


def test_a_host_with_another_accelerator_lacks_the_targets_device() -> None:
    report, text = judge(NPU, wrapped(0, ("cpu",), ("cuda:0",), configured=None))
    assert report.exit_code == 0
    assert (
        "host: this host has no 'npu' device: MMEngine resolved 'cuda' here, while on a npu-box "
        "host it resolves 'npu'"
    ) in text


# --- several devices ----------------------------------------------------------------------


def test_a_model_spanning_several_devices_is_reported_with_what_ddp_requires() -> None:
    split = ("cuda:0", "cuda:1")
    report, text = judge(
        CUDA,
        wrapped(0, split, split, configured=None),
        wrapped(1, split, split, configured="[1]"),
    )
    assert report.exit_code == 0
    assert (
        "note: rank 0: parameters span several devices {cuda:0, cuda:1}: DDP accepts such "
        "a model only with device_ids=None written out in model_wrapper_cfg (left out, "
        "Runner.wrap_model passes device_ids=[LOCAL_RANK])"
    ) in text
    assert "rank 1: parameters span several devices {cuda:0, cuda:1}: DDP accepts such a " in (
        text
    )
    assert "this config sets [1]" in text


def test_a_spanning_model_whose_config_already_sets_device_ids_none_is_not_told_to() -> None:
    split = ("cuda:0", "cuda:1")
    _, text = judge(CUDA, wrapped(0, split, split, configured="None"))
    assert (
        "DDP accepts such a model only with device_ids=None, which this config's "
        "model_wrapper_cfg sets"
    ) in text
    assert "written out" not in text


def test_a_split_model_gathered_by_mmengines_placement_is_a_warning() -> None:
    report, text = judge(CUDA, wrapped(0, ("cuda:0", "cuda:1"), ("cuda:0",)))
    assert (
        "warning: rank 0: the model was built across {cuda:0, cuda:1}, and Runner.wrap_model's "
        "model.to(get_device()) gathered it onto {cuda:0}: its model parallelism is lost\n"
    ) in text
    assert "span several devices" not in text
    assert report.exit_code == 0  # it trains, on one device per rank


# --- ranks that did not finish ------------------------------------------------------------


def test_a_lost_rank_fails_the_run_and_an_unmapped_error_names_no_rule() -> None:
    boom = failed(1, RankError("wrap", "RuntimeError", "boom"))
    report, text = judge(T20, LostRank(0, "hung in wrap: killed", phase="wrap"), boom)
    assert report.exit_code == 1
    assert "problem: rank 0: hung in wrap: killed" in text
    assert "problem: rank 1: wrap failed with RuntimeError\n" in text
    assert "catches this statically" not in text


@pytest.mark.parametrize("phase", ["load", "build"])
def test_a_rank_that_died_loading_or_building_is_a_load_or_build_error(
    phase: Phase,
) -> None:
    died = LostRank(0, f"died in {phase}: exited with code 3", phase=phase, died=True)
    report, _ = judge(CPU, died)
    assert report.exit_code == 2
    assert report.errors[0].endswith(f"(rank 0): died in {phase}: exited with code 3")


def test_a_system_exit_in_the_wrap_is_a_failure_with_its_cause() -> None:
    report, text = judge(CPU, failed(0, RankError("wrap", "SystemExit", "")))
    assert report.exit_code == 1
    assert (
        "problem: rank 0: wrap failed with SystemExit (sys.exit() or raise SystemExit in code "
        "run during wrap ended the wrap step)"
    ) in text
    assert "    error: SystemExit\n" in text


def test_a_rank_that_stopped_without_finishing_or_an_error_is_never_ok() -> None:
    stopped = RankResult(0, 0, 1, "build", "entry-point", mmengine_device="cpu")
    report, text = judge(CPU, stopped)
    assert report.exit_code == 1
    assert "problem: rank 0: stopped in build without finishing it" in text


def test_a_rank_process_that_exits_non_zero_after_its_result_is_never_ok() -> None:
    result = wrapped(0, ("cpu",), ("cpu",), device="cpu")
    report, text = judge(CPU, dataclasses.replace(result, process_exit_code=9))
    assert report.exit_code == 1
    assert "problem: rank 0: the rank process exited with code 9 after writing its result" in (
        text
    )

