"""Turn the ranks' results into a report: what happened, what it means for the target, exit code.

It never claims a device no rank used: every statement about devices comes from a result, and
what the target's own host would do is said only where MMEngine's code decides it the same way
(see `host_fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from cfglint.dryrun import devices
from cfglint.dryrun.launch import Launcher
from cfglint.dryrun.result import LostRank, RankError, RankOutcome, RankResult
from cfglint.dryrun.rule_map import RuleHit, rules_for

if TYPE_CHECKING:
    from cfglint.targets import Target

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_ERROR = 2

# How what MMEngine resolved on this host compares with what it resolves on the target's host:
# target-device: the same device, the target's own (cuda on a CUDA host, cpu on a CPU host);
# target-path: the same fallback 'cpu' a host of a device MMEngine does not know resolves (gcu);
# lacks-device: the target's device is one MMEngine knows, and this host does not have it;
# other-path: the target's host resolves 'cpu' and this host resolved something else anyway.
HostFit: TypeAlias = Literal["target-device", "target-path", "lacks-device", "other-path"]

_ENDED_BY = {
    "SystemExit": "sys.exit() or raise SystemExit in {code}",
    "KeyboardInterrupt": "a KeyboardInterrupt in {code}",
}
_CODE_RUN_IN = {"load": "the config's code", "build": "the model's code"}


@dataclass(frozen=True, slots=True)
class TargetView:
    """What the report needs of a target, all of it read from the target file."""

    name: str
    device: str
    description: str = ""
    # The rule codes the target's policies name: only those apply to it.
    rules: frozenset[str] = frozenset()
    # get_device() on the target's own host with nothing imported first (`host.mmengine-device`
    # in the target file); None: the target's own device.
    host_device: str | None = None
    # The module whose import before mmengine changes what MMEngine resolves there
    # (`host.vendor-import`), if the target file names one.
    vendor_module: str | None = None

    @staticmethod
    def of(target: Target) -> TargetView:
        host = target.host
        vendor = host.vendor_import
        switch = vendor is not None and vendor.mmengine_device != host.mmengine_device
        return TargetView(
            name=target.name,
            device=target.device,
            description=target.description,
            rules=frozenset(policy.rule for policy in target.keys.values()),
            host_device=host.mmengine_device,
            vendor_module=vendor.modules[0] if vendor is not None and switch else None,
        )

    @property
    def mmengine_knows_device(self) -> bool:
        return self.host_resolves == self.device

    @property
    def host_resolves(self) -> str:
        """`get_device()` on the target's own host, with no vendor import first."""
        return self.host_device if self.host_device is not None else self.device

    @property
    def ranks_hide_cuda(self) -> bool:
        """The target's host resolves 'cpu': the ranks run with CUDA hidden, so that a host
        with CUDA resolves it too (through MMEngine's own get_device())."""
        return self.host_resolves == "cpu"

    def without_plugin(self) -> str:
        """The condition under which the target's host resolves `host_resolves`."""
        if self.vendor_module is None:
            return ""
        return f" without `{self.vendor_module}` imported before mmengine"


@dataclass(frozen=True, slots=True)
class EntryView:
    """What an entry-script dry run ran: `SCRIPT ARGS...` in `cwd`."""

    script: Path  # as given on the command line
    args: tuple[str, ...]
    cwd: Path
    config: Path | None = None  # the config among the arguments, if one was found


@dataclass(frozen=True, slots=True)
class DryRunReport:
    config: Path | None  # None: an entry script whose arguments name no config
    target: TargetView
    world_size: int
    launcher: Launcher | None  # None: an entry script (the script decides)
    outcomes: tuple[RankOutcome, ...]
    rule_hits: dict[int, tuple[RuleHit, ...]]
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    problems: tuple[str, ...]  # exit code 1: a rank failed, or devices do not match
    errors: tuple[str, ...]  # exit code 2: nothing about the wrap can be concluded
    exit_code: int
    entry: EntryView | None = None


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


def host_fit(target: TargetView, resolved: frozenset[str]) -> HostFit:
    if resolved == {target.host_resolves}:
        return "target-device" if target.host_resolves == target.device else "target-path"
    if target.host_resolves == "cpu":
        # MMEngine's own fallback (`DEVICE = 'cpu'` in mmengine/device/utils.py): a host that
        # resolved an accelerator instead took another path than the target's host.
        return "other-path"
    return "lacks-device"


def results_of(outcomes: Sequence[RankOutcome]) -> list[RankResult]:
    return [outcome for outcome in outcomes if isinstance(outcome, RankResult)]


def host_note(target: TargetView, fit: HostFit, shown: str, cuda_hidden: bool) -> str:
    hidden = (
        " (the ranks ran with CUDA_VISIBLE_DEVICES='', so that a host with CUDA resolves 'cpu' "
        f"as a {target.name} host does)"
        if cuda_hidden
        else ""
    )
    if fit == "target-device":
        return f"host: MMEngine resolved {shown}, the device of target {target.name}{hidden}"
    if fit == "target-path":
        return (
            f"host: MMEngine resolved {shown}. MMEngine does not know {target.device!r}: on a "
            f"{target.name} host{target.without_plugin()} it resolves "
            f"{target.host_resolves!r} too, so the wrap path shown is the one the "
            f"{target.name} job runs{hidden}"
        )
    if fit == "lacks-device":
        return (
            f"host: this host has no {target.device!r} device: MMEngine resolved {shown} here, "
            f"while on a {target.name} host it resolves {target.device!r} and "
            f"Runner.wrap_model moves the model there; the wrap path shown is this host's, "
            f"not the {target.name} job's"
        )
    return f"host: MMEngine resolved {shown} here{' with CUDA hidden' if cuda_hidden else ''}"


def _span_requirement(result: RankResult) -> str:
    configured = result.configured_device_ids
    if configured == "None":
        return (
            "DDP accepts such a model only with device_ids=None, which this config's "
            "model_wrapper_cfg sets"
        )
    if configured is not None:
        return f"DDP accepts such a model only with device_ids=None; this config sets {configured}"
    return (
        "DDP accepts such a model only with device_ids=None written out in model_wrapper_cfg "
        "(left out, Runner.wrap_model passes device_ids=[LOCAL_RANK])"
    )


def span_notes(results: Sequence[RankResult]) -> list[str]:
    """A model whose parameters span several devices after the wrap: what DDP needs of it."""
    return [
        f"rank {result.rank}: parameters span several devices "
        f"{devices.describe(result.parameter_devices)}: {_span_requirement(result)}"
        for result in results
        if devices.spans_several_devices(result.parameter_devices)
    ]


def gathered_warnings(results: Sequence[RankResult]) -> list[str]:
    """A model built across several devices that the wrap gathered onto one: it trains, but no
    longer as the model parallelism it was built for (each rank holds all of it on one device,
    which may not even fit)."""
    return [
        f"rank {result.rank}: the model was built across "
        f"{devices.describe(result.built_parameter_devices)}, and Runner.wrap_model's "
        f"model.to(get_device()) gathered it onto {devices.describe(result.parameter_devices)}: "
        "its model parallelism is lost"
        for result in results
        if devices.spans_several_devices(result.built_parameter_devices)
        and result.parameter_devices
        and not devices.spans_several_devices(result.parameter_devices)
    ]


def ended_by(error: RankError) -> str:
    why = _ENDED_BY.get(error.type)
    if why is None:
        return ""
    code = _CODE_RUN_IN.get(error.phase, f"code run during {error.phase}")
    return f" ({why.format(code=code)} ended the {error.phase} step)"


def first_line(error: RankError) -> str:
    return (error.headline.splitlines() or [""])[0] + ended_by(error)


_WHAT_FAILED = {"load": "the config failed to load", "build": "the model failed to build"}


def _load_or_build_error(outcomes: Sequence[RankOutcome]) -> str | None:
    """The first rank that could not load the config or build the model: exit code 2."""
    for outcome in outcomes:
        if isinstance(outcome, LostRank):
            if outcome.died and outcome.phase in _WHAT_FAILED:
                return f"{_WHAT_FAILED[outcome.phase]} (rank {outcome.rank}): {outcome.reason}"
        elif outcome.error is not None and outcome.error.phase in _WHAT_FAILED:
            what = _WHAT_FAILED[outcome.error.phase]
            return f"{what} (rank {outcome.rank}): {first_line(outcome.error)}"
    return None


def host_caused(error: RankError, fit: HostFit | None) -> bool:
    """A device failure that comes from this host lacking the target's device, not the config."""
    return fit == "lacks-device" and bool(rules_for(error))


def fit_of(target: TargetView, results: Sequence[RankResult]) -> tuple[HostFit | None, str]:
    """How this host compares with the target's (None: no rank got as far as asking MMEngine)."""
    resolved = frozenset(r.mmengine_device for r in results if r.mmengine_device is not None)
    shown = ", ".join(sorted(repr(device) for device in resolved))
    return (host_fit(target, resolved) if resolved else None), shown


class Verdict:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.warnings: list[str] = []
        self.problems: list[str] = []
        self.errors: list[str] = []

    @property
    def exit_code(self) -> int:
        return EXIT_ERROR if self.errors else (EXIT_FAILED if self.problems else EXIT_OK)

    def report(
        self,
        config: Path | None,
        target: TargetView,
        world_size: int,
        launcher: Launcher | None,
        outcomes: Sequence[RankOutcome],
        hits: dict[int, tuple[RuleHit, ...]],
        entry: EntryView | None = None,
    ) -> DryRunReport:
        """The report of a dry run judged by this verdict."""
        return DryRunReport(
            config,
            target,
            world_size,
            launcher,
            tuple(outcomes),
            hits,
            tuple(self.notes),
            tuple(self.warnings),
            tuple(self.problems),
            tuple(self.errors),
            self.exit_code,
            entry,
        )


def judge_ranks(
    outcomes: Sequence[RankOutcome],
    hits: dict[int, tuple[RuleHit, ...]],
    target: TargetView,
    fit: HostFit | None,
    verdict: Verdict,
) -> None:
    from_host: list[RankResult] = []
    for outcome in outcomes:
        if isinstance(outcome, LostRank):
            verdict.problems.append(f"rank {outcome.rank}: {outcome.reason}")
            continue
        if outcome.error is not None:
            if host_caused(outcome.error, fit):
                from_host.append(outcome)
                continue
            codes = ", ".join(hit.code for hit in hits.get(outcome.rank, ()))
            verdict.problems.append(
                f"rank {outcome.rank}: {outcome.error.phase} failed with "
                f"{outcome.error.type}{ended_by(outcome.error)}" + (f" ({codes})" if codes else "")
            )
        elif outcome.phase != "done":
            verdict.problems.append(
                f"rank {outcome.rank}: stopped in {outcome.phase} without finishing it"
            )
        if outcome.process_exit_code not in (0, None):
            verdict.problems.append(
                f"rank {outcome.rank}: the rank process exited with code "
                f"{outcome.process_exit_code} after writing its result"
            )
    if from_host:
        first = from_host[0]
        assert first.error is not None
        ranks = ", ".join(str(result.rank) for result in from_host)
        verdict.errors.append(
            f"rank(s) {ranks}: the {first.error.phase} failure ({first.error.type}) comes from "
            f"running a {target.device!r} config on a host without a {target.device!r} device "
            f"(MMEngine resolved {first.mmengine_device!r} here, {target.device!r} on a "
            f"{target.name} host): this host cannot show whether the {target.name} job's "
            f"wrap succeeds; run the dry run on a {target.name} host"
        )


def judge_devices(
    results: Sequence[RankResult], target: TargetView, fit: HostFit | None, verdict: Verdict
) -> None:
    placed = [result for result in results if result.ok]
    if not placed:
        return
    all_on_cpu = all(devices.all_on(result.parameter_devices, "cpu") for result in placed)
    if fit == "lacks-device":
        if all_on_cpu:
            verdict.notes.append(
                f"placement: the parameters are on the CPU here because this host has no "
                f"{target.device!r}; on a {target.name} host MMEngine resolves "
                f"{target.device!r} and Runner.wrap_model moves them there, which this host "
                "cannot show"
            )
        return
    if all_on_cpu and target.device != "cpu":
        verdict.warnings.append(
            f"the parameters end on the CPU for target {target.name} (device "
            f"{target.device!r}): training would run on the CPU"
        )
    if fit in ("target-device", None):
        for result in placed:
            if not devices.all_on(result.parameter_devices, target.device):
                verdict.problems.append(
                    f"rank {result.rank}: parameters on "
                    f"{devices.describe(result.parameter_devices)}, not on the target's "
                    f"{target.device!r}"
                )


def judge_host(target: TargetView, results: Sequence[RankResult], verdict: Verdict) -> bool:
    """The host note; False when this host's path is not the target's (nothing to judge)."""
    fit, shown = fit_of(target, results)
    if fit is None:
        return True
    cuda_hidden = any(result.cuda_visible_devices == "" for result in results)
    verdict.notes.append(host_note(target, fit, shown, cuda_hidden))
    if fit != "other-path":
        return True
    verdict.errors.append(
        f"this host resolved {shown}"
        + (" although the ranks ran with CUDA hidden" if cuda_hidden else "")
        + f", while a {target.name} host resolves {target.host_resolves!r}: the wrap shown "
        "is not the "
        f"{target.name} job's path, so dryrun cannot judge it on this host"
    )
    return False


def _judge(
    outcomes: Sequence[RankOutcome],
    hits: dict[int, tuple[RuleHit, ...]],
    target: TargetView,
    verdict: Verdict,
) -> None:
    results = results_of(outcomes)
    unsupported = next((r.unsupported for r in results if r.unsupported is not None), None)
    if unsupported is not None:
        verdict.errors.append(f"dryrun cannot run this config: {unsupported}")
        return
    if not judge_host(target, results, verdict):
        return
    fit, _shown = fit_of(target, results)
    verdict.notes.extend(span_notes(results))
    verdict.warnings.extend(gathered_warnings(results))
    load_or_build = _load_or_build_error(outcomes)
    if load_or_build is not None:
        verdict.errors.append(load_or_build)
        return
    judge_ranks(outcomes, hits, target, fit, verdict)
    judge_devices(results, target, fit, verdict)


def assess(
    config: Path,
    target: TargetView,
    world_size: int,
    launcher: Launcher,
    outcomes: Sequence[RankOutcome],
) -> DryRunReport:
    results = results_of(outcomes)
    fit, _shown = fit_of(target, results)
    # A rule is named only where it applies to the target, and never for a failure this host
    # caused by lacking the target's device.
    hits = {
        r.rank: ()
        if host_caused(r.error, fit)
        else tuple(hit for hit in rules_for(r.error) if hit.code in target.rules)
        for r in results
        if r.error is not None
    }
    verdict = Verdict()
    verdict.notes.append(PATH_NOTES[launcher])
    if results and results[0].import_paths:
        verdict.notes.append(
            "import paths: custom_imports resolved with "
            + ", ".join(results[0].import_paths)
            + " first on sys.path (as PYTHONPATH in tools/dist_train.sh)"
        )
    _judge(outcomes, hits, target, verdict)
    return verdict.report(config, target, world_size, launcher, outcomes, hits)
