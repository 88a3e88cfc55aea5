"""Turn the ranks' results into a report: what happened, what it means for the target, exit code.

It never claims a device no rank used: every statement about devices comes from a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.dryrun import devices
from cfglint.dryrun.launch import Launcher
from cfglint.dryrun.result import LostRank, RankOutcome, RankResult
from cfglint.dryrun.rule_map import RuleHit, rules_for

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ERROR = 2

# The accelerators mmengine.device.get_device() can return (mmengine 0.10).
MMENGINE_DEVICES = frozenset({"cuda", "npu", "mlu", "mps", "dipu", "musa", "cpu"})


@dataclass(frozen=True, slots=True)
class TargetView:
    name: str
    device: str
    description: str = ""

    @property
    def mmengine_knows_device(self) -> bool:
        return self.device in MMENGINE_DEVICES


@dataclass(frozen=True, slots=True)
class DryRunReport:
    config: Path
    target: TargetView
    world_size: int
    launcher: Launcher
    outcomes: tuple[RankOutcome, ...]
    rule_hits: dict[int, tuple[RuleHit, ...]]
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    problems: tuple[str, ...]
    exit_code: int


PATH_NOTES: dict[Launcher, str] = {
    "entry-point": (
        "path: each rank created the process group first (gloo, 127.0.0.1), as the "
        "recommended entry point does; Runner.setup_env then skipped mmengine.dist.init_dist "
        "because a process group existed (use --launcher pytorch for the init_dist path)"
    ),
    "pytorch": (
        "path: each rank went through mmengine.dist.init_dist(launcher='pytorch', "
        "**env_cfg.dist_cfg) in Runner.setup_env, as a Runner with launcher='pytorch' does "
        "when no process group exists"
    ),
    "none": (
        "path: launcher 'none': not distributed, so Runner.wrap_model only moved the model to "
        "get_device(); no DDP wrapper is built"
    ),
}


def _results(outcomes: Sequence[RankOutcome]) -> list[RankResult]:
    return [outcome for outcome in outcomes if isinstance(outcome, RankResult)]


def _host_notes(target: TargetView, resolved: set[str]) -> tuple[list[str], bool]:
    """Notes on the host versus the target's host, and whether this host has the device."""
    shown = ", ".join(sorted(repr(device) for device in resolved))
    if resolved == {target.device}:
        return [f"host: MMEngine resolved {shown}, the device of target {target.name}"], True
    if not target.mmengine_knows_device:
        plugin = (
            "`torch_gcu.transfer_to_gcu`"
            if target.device == "gcu"
            else (f"the {target.device} torch plug-in")
        )
        return [
            f"host: this host has no {target.device!r} device as MMEngine sees it: "
            f"mmengine.device.get_device() resolved {shown}. MMEngine does not know "
            f"{target.device!r}: on a {target.name} host without {plugin} imported "
            f"before mmengine it resolves 'cpu' just "
            f"like this host, so the wrap path shown is the one the {target.name} job runs"
        ], False
    return [
        f"host: this host has no {target.device!r} device: MMEngine resolved {shown} here, "
        f"while on a {target.name} host it resolves {target.device!r} and moves the model there; "
        f"the wrap path shown is this host's, not the {target.name} job's"
    ], False


def _span_notes(results: Sequence[RankResult]) -> list[str]:
    notes = []
    for result in results:
        built, placed = result.built_parameter_devices, result.parameter_devices
        if devices.spans_several_devices(placed):
            notes.append(
                f"rank {result.rank}: parameters span several devices "
                f"{devices.describe(placed)}: DDP accepts such a model only with "
                "device_ids=None (and output_device=None) in model_wrapper_cfg"
            )
        elif devices.spans_several_devices(built) and placed:
            notes.append(
                f"rank {result.rank}: the model was built across {devices.describe(built)}; "
                f"Runner.wrap_model's model.to(get_device()) gathered it onto "
                f"{devices.describe(placed)}"
            )
    return notes


def _load_or_build_problem(results: Sequence[RankResult]) -> str | None:
    for result in results:
        if result.error is not None and result.error.phase in ("load", "build"):
            what = (
                "the config failed to load"
                if result.error.phase == "load"
                else ("the model failed to build")
            )
            first_line = (result.error.headline.splitlines() or [""])[0]
            return f"{what} (rank {result.rank}): {first_line}"
    return None


def _judge(
    outcomes: Sequence[RankOutcome],
    results: Sequence[RankResult],
    hits: Mapping[int, tuple[RuleHit, ...]],
    target: TargetView,
    host_has_device: bool,
    problems: list[str],
    warnings: list[str],
) -> None:
    """What went wrong on the ranks, and whether the devices are what the target expects."""
    for outcome in outcomes:
        if isinstance(outcome, LostRank):
            problems.append(f"rank {outcome.rank}: {outcome.reason}")
        elif outcome.error is not None:
            codes = ", ".join(hit.code for hit in hits.get(outcome.rank, ()))
            problems.append(
                f"rank {outcome.rank}: {outcome.error.phase} failed with "
                f"{outcome.error.type}" + (f" ({codes})" if codes else "")
            )
    placed = [r for r in results if r.ok]
    if (
        placed
        and target.device != "cpu"
        and all(devices.all_on(r.parameter_devices, "cpu") for r in placed)
    ):
        warnings.append(
            f"the parameters end on the CPU for target {target.name} (device "
            f"{target.device!r}): training would run on the CPU"
        )
    if host_has_device:
        for result in placed:
            if not devices.all_on(result.parameter_devices, target.device):
                problems.append(
                    f"rank {result.rank}: parameters on "
                    f"{devices.describe(result.parameter_devices)}, not on the target's "
                    f"{target.device!r}"
                )


def assess(
    config: Path,
    target: TargetView,
    world_size: int,
    launcher: Launcher,
    outcomes: Sequence[RankOutcome],
) -> DryRunReport:
    results = _results(outcomes)
    hits = {r.rank: rules_for(r.error) for r in results if r.error is not None}
    notes = [PATH_NOTES[launcher]]
    if results and results[0].import_paths:
        notes.append(
            "import paths: custom_imports resolved with "
            + ", ".join(results[0].import_paths)
            + " first on sys.path (as PYTHONPATH in tools/dist_train.sh)"
        )
    warnings: list[str] = []
    problems: list[str] = []
    resolved = {r.mmengine_device for r in results if r.mmengine_device is not None}
    host_has_device = True
    if resolved:
        host_notes, host_has_device = _host_notes(target, resolved)
        notes.extend(host_notes)
    notes.extend(_span_notes(results))

    load_problem = _load_or_build_problem(results)
    if load_problem is not None:
        problems.append(load_problem)
        exit_code = EXIT_ERROR
    else:
        _judge(outcomes, results, hits, target, host_has_device, problems, warnings)
        exit_code = EXIT_FAILED if problems else EXIT_OK
    return DryRunReport(
        config,
        target,
        world_size,
        launcher,
        tuple(outcomes),
        hits,
        tuple(notes),
        tuple(warnings),
        tuple(problems),
        exit_code,
    )
