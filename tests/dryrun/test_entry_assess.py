"""Judging an entry-script dry run from constructed rank results (what no CPU host can show)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from cfglint.dryrun.assess import DryRunReport, EntryView, TargetView
from cfglint.dryrun.entry_assess import assess_entry
from cfglint.dryrun.render_json import render_json
from cfglint.dryrun.render_text import render_text
from cfglint.dryrun.result import (
    Frame,
    InitDistCall,
    LoadedConfig,
    LostRank,
    RankError,
    RankOutcome,
    RankResult,
    SourceLine,
    WrapperInfo,
    WrapRecord,
)
from cfglint.targets import load_target

CWD = Path("/project")
ENTRY = EntryView(Path("tools/train.py"), ("configs/job.py",), CWD, Path("configs/job.py"))
T20 = TargetView.of(load_target("t20-gcu"))
CUDA = TargetView.of(load_target("cuda"))
SCRIPT_LINE = SourceLine("/project/tools/train.py", 40, "main", "runner = Runner.from_cfg(cfg)")
DDP_ERROR = RankError(
    "wrap",
    "ValueError",
    "DistributedDataParallel device_ids and output_device arguments only work with "
    "single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], "
    "output_device None, and module parameters {device(type='cpu')}.",
)
WRAPPER_CFG = {"type": "MMDistributedDataParallel", "device_ids": None}


def runner_wrap(
    error: RankError | None = None, device_ids: tuple[int, ...] | None = None
) -> WrapRecord:
    return WrapRecord(
        by="runner",
        type="MMDistributedDataParallel",
        is_ddp=True,
        device_ids=device_ids,
        parameter_devices=("cpu",),
        buffer_devices=("cpu",),
        mmengine_device="cpu",
        error=error,
        script_line=SCRIPT_LINE,
        model_wrapper_cfg=WRAPPER_CFG,
    )


def stopped(rank: int, *wraps: WrapRecord) -> RankResult:
    return RankResult(
        rank=rank,
        local_rank=rank,
        world_size=2,
        phase="done",
        dist_path="entry-point",
        mmengine_device="cpu",
        cuda_visible_devices="",
        process_group_backend="gloo",
        parameter_devices=("cpu",),
        buffer_devices=("cpu",),
        wrapper=WrapperInfo("MMDistributedDataParallel", None, None, is_ddp=True),
        script_end="stopped",
        stopped_at="Runner.train",
        wraps=wraps or (runner_wrap(),),
        process_group_by="script",
        process_group_line=SourceLine("/project/tools/train.py", 38, "main", "x"),
        runner_launcher="pytorch",
        loaded_configs=(LoadedConfig("/project/configs/job.py", WRAPPER_CFG),),
    )


def raised(rank: int, error: RankError, *wraps: WrapRecord, phase: str = "wrap") -> RankResult:
    return RankResult(
        rank=rank,
        local_rank=rank,
        world_size=2,
        phase=phase,  # type: ignore[arg-type]
        dist_path="entry-point",
        mmengine_device="cpu",
        cuda_visible_devices="",
        error=error,
        script_end="raised",
        wraps=wraps,
        runner_launcher="pytorch",
    )


def judge(target: TargetView, *outcomes: RankOutcome) -> tuple[DryRunReport, str]:
    report = assess_entry(ENTRY, target, len(outcomes), outcomes)
    return report, render_text(report)


def test_every_rank_stopped_on_cpu_for_t20_is_ok_with_the_cpu_warning() -> None:
    report, text = judge(T20, stopped(0), stopped(1))
    assert report.exit_code == 0
    assert report.warnings == (
        "the parameters end on the CPU for target t20-gcu (device 'gcu'): training would run "
        "on the CPU",
    )
    assert text.splitlines()[0] == (
        "tools/train.py configs/job.py: dry run of the entry script for target t20-gcu "
        "(device 'gcu'), 2 rank(s)"
    )
    assert "    stopped at Runner.train: no training step ran" in text
    assert (
        "note: path: the script created the process group itself "
        "(torch.distributed.init_process_group at tools/train.py:38, gloo)"
    ) in text


def test_a_wrap_failure_maps_to_its_rule_and_exits_1() -> None:
    failed = raised(0, DDP_ERROR, runner_wrap(DDP_ERROR, (0,)))
    report, text = judge(T20, failed)
    assert report.exit_code == 1
    assert [hit.code for hit in report.rule_hits[0]] == ["CL201"]
    assert "problem: rank 0: wrap failed with ValueError (CL201)" in text


def test_a_wrap_failure_the_script_caught_still_names_the_rule_and_is_noted() -> None:
    recovered = stopped(0, runner_wrap(DDP_ERROR, (0,)))
    report, text = judge(T20, recovered)
    assert report.exit_code == 0
    assert [hit.code for hit in report.rule_hits[0]] == ["CL201"]
    assert "note: rank 0: wrap 1 failed with ValueError and the script went on" in text


def test_a_failure_before_any_wrap_that_no_rule_catches_cannot_show_anything() -> None:
    error = RankError(
        "script",
        "KeyError",
        "'data_root'",
        (Frame("/project/tools/train.py", 12, "main"), Frame("/lib/x.py", 3, "get")),
    )
    report, _ = judge(T20, raised(0, error, phase="script"))
    assert report.exit_code == 2
    assert report.errors == (
        "the script failed before any wrap (rank 0): KeyError: 'data_root' (tools/train.py:12)",
    )


def test_init_dist_failing_before_any_wrap_is_a_rule_failure_not_a_cannot_run() -> None:
    error = RankError(
        "setup_env",
        "RuntimeError",
        "Found no NVIDIA driver on your system.",
        (
            Frame("mmengine/dist/utils.py", 67, "init_dist"),
            Frame("mmengine/dist/utils.py", 115, "_init_dist_pytorch"),
        ),
    )
    call = InitDistCall(
        "script",
        "pytorch",
        "gloo",
        error,
        SourceLine("/project/tools/train.py", 20, "main", "init_dist(...)"),
    )
    result = dataclasses.replace(raised(0, error, phase="setup_env"), init_dist_calls=(call,))
    report, text = judge(T20, result)
    assert report.exit_code == 1
    assert [hit.code for hit in report.rule_hits[0]] == ["CL102"]
    assert (
        "note: path: the script at tools/train.py:20 called mmengine.dist.init_dist("
        "launcher='pytorch', backend='gloo'), which failed with RuntimeError"
    ) in text
    assert (
        "    init_dist: mmengine.dist.init_dist(launcher='pytorch', backend='gloo') by the "
        "script at tools/train.py:20 `init_dist(...)`: failed with RuntimeError (not the "
        "Runner's call: the fix goes in the code shown)"
    ) in text


def test_a_script_that_ends_before_any_wrap_has_nothing_to_show() -> None:
    result = RankResult(
        rank=0, local_rank=0, world_size=1, phase="done", dist_path="none", script_end="exited"
    )
    report, _ = judge(T20, result)
    assert report.exit_code == 2
    assert report.errors == (
        "the script called sys.exit(0) before any model wrap (rank 0): there is no wrap to show",
    )


def test_a_rank_that_dies_in_the_script_cannot_show_anything_but_a_hung_one_is_a_failure() -> None:
    died = LostRank(
        0, "died in script (...): exited with code 3 without a result", "", "script", died=True
    )
    report, _ = judge(T20, died)
    assert report.exit_code == 2
    hung = LostRank(
        0, "hung in script (...): no result after 5 s (--timeout 5): killed", "", "script"
    )
    report, _ = judge(T20, hung)
    assert report.exit_code == 1


def test_a_device_failure_on_a_host_without_the_targets_device_blames_the_host() -> None:
    failed = raised(0, DDP_ERROR, runner_wrap(DDP_ERROR, (0,)))
    report, text = judge(CUDA, failed)
    assert report.exit_code == 2
    assert report.rule_hits == {0: ()}
    assert "catches this statically" not in text


def test_what_the_script_changed_in_model_wrapper_cfg_is_noted() -> None:
    changed = WrapRecord(
        by="runner",
        type="MMDistributedDataParallel",
        is_ddp=True,
        device_ids=(0,),
        error=DDP_ERROR,
        model_wrapper_cfg={"type": "MMDistributedDataParallel"},
    )
    result = dataclasses.replace(
        raised(0, DDP_ERROR, changed),
        loaded_configs=(LoadedConfig("/project/configs/job.py", WRAPPER_CFG),),
    )
    _, text = judge(T20, result)
    assert (
        "note: model_wrapper_cfg: configs/job.py gives dict(type='MMDistributedDataParallel', "
        "device_ids=None), but Runner.wrap_model got dict(type='MMDistributedDataParallel'): "
        "the script changed it after Config.fromfile"
    ) in text


def test_the_json_report_says_it_is_an_entry_run() -> None:
    report, _ = judge(T20, stopped(0))
    document = json.loads(render_json(report))
    assert document["schema"] == 3 and document["mode"] == "entry"
    assert document["entry"] == {
        "script": "tools/train.py",
        "args": ["configs/job.py"],
        "cwd": "/project",
    }
    (rank,) = document["ranks"]
    assert rank["stopped_at"] == "Runner.train"
    assert rank["wraps"][0]["script_line"]["code"] == "runner = Runner.from_cfg(cfg)"
