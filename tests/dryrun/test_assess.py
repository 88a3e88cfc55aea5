"""The report's judgement from rank results, with fake device sets where this host has none."""

from __future__ import annotations

from pathlib import Path

from cfglint.dryrun.assess import TargetView, assess
from cfglint.dryrun.render_text import render_text
from cfglint.dryrun.result import LostRank, RankError, RankOutcome, RankResult, WrapperInfo

CONFIG = Path("configs/job.py")
CUDA = TargetView("cuda", "cuda")
T20 = TargetView("t20-gcu", "gcu")


def wrapped(
    rank: int, built: tuple[str, ...], placed: tuple[str, ...], device: str = "cuda"
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
        wrapper=WrapperInfo("MMDistributedDataParallel", None, None, is_ddp=True),
    )


def run(target: TargetView, *outcomes: RankOutcome) -> str:
    report = assess(CONFIG, target, len(outcomes), "entry-point", outcomes)
    return f"{report.exit_code}\n{render_text(report)}"


def test_a_model_spanning_several_devices_is_reported_with_what_ddp_requires() -> None:
    split = ("cuda:0", "cuda:1")
    text = run(CUDA, wrapped(0, split, split), wrapped(1, split, split))
    assert text.startswith("0\n")
    assert (
        "note: rank 0: parameters span several devices {cuda:0, cuda:1}: DDP accepts such "
        "a model only with device_ids=None (and output_device=None) in model_wrapper_cfg"
    ) in text
    assert "rank 1: parameters span several devices" in text


def test_a_split_model_gathered_by_mmengines_placement_is_reported() -> None:
    text = run(CUDA, wrapped(0, ("cuda:0", "cuda:1"), ("cuda:0",)))
    assert (
        "rank 0: the model was built across {cuda:0, cuda:1}; Runner.wrap_model's "
        "model.to(get_device()) gathered it onto {cuda:0}"
    ) in text
    assert "span several devices" not in text


def test_parameters_off_the_target_device_on_a_host_that_has_it_exit_1() -> None:
    text = run(CUDA, wrapped(0, ("cpu",), ("cpu",)))
    assert text.startswith("1\n")
    assert "problem: rank 0: parameters on {cpu}, not on the target's 'cuda'" in text
    assert "warning: the parameters end on the CPU for target cuda" in text


def test_a_target_mmengine_knows_on_a_host_without_it_says_the_path_differs() -> None:
    text = run(CUDA, wrapped(0, ("cpu",), ("cpu",), device="cpu"))
    assert text.startswith("0\n")
    assert (
        "this host has no 'cuda' device: MMEngine resolved 'cpu' here, while on a cuda host "
        "it resolves 'cuda'"
    ) in text


def test_a_lost_rank_fails_the_run_and_an_unmapped_error_names_no_rule() -> None:
    failed = RankResult(
        rank=1,
        local_rank=1,
        world_size=2,
        phase="wrap",
        dist_path="entry-point",
        mmengine_device="cpu",
        error=RankError("wrap", "RuntimeError", "boom"),
    )
    text = run(T20, LostRank(0, "exited with code 9 without a result"), failed)
    assert text.startswith("1\n")
    assert "problem: rank 0: exited with code 9 without a result" in text
    assert "problem: rank 1: wrap failed with RuntimeError\n" in text
    assert "catches this statically" not in text
