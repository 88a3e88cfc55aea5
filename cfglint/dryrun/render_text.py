"""`cfglint dryrun` for people: one block per rank, then notes, warnings and the verdict."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from cfglint.dryrun import devices
from cfglint.dryrun.assess import EXIT_ERROR, EXIT_OK, DryRunReport
from cfglint.dryrun.result import (
    InitDistCall,
    RankError,
    RankOutcome,
    RankResult,
    SourceLine,
    WrapperInfo,
    WrapRecord,
)

_INDENT = "    "


def _wrapper_line(wrapper: WrapperInfo | None) -> str:
    if wrapper is None:
        return "none"
    return (
        f"{wrapper.type} (device_ids={_ids(wrapper.device_ids)}, "
        f"output_device={wrapper.output_device!r})"
    )


def _ids(device_ids: tuple[int | str, ...] | None) -> str:
    return "None" if device_ids is None else "[" + ", ".join(map(repr, device_ids)) + "]"


def _status(result: RankResult) -> str:
    if result.unsupported is not None:
        return "not run (unsupported config, see below)"
    if not result.ok:
        # The step the error came from (an entry script's may come from before its furthest).
        return f"FAILED in {result.error.phase if result.error is not None else result.phase}"
    return "wrapped" if result.wrapper is not None else "placed (not wrapped)"


def _line(line: SourceLine | None, base: Path) -> str:
    if line is None:
        return ""
    return f"{line.where(base)}" + (f" `{line.code}`" if line.code else "")


def _wrap_line(number: int, wrap: WrapRecord, base: Path) -> str:
    if wrap.by == "runner":
        who = "Runner.wrap_model" + (
            f" (from {_line(wrap.script_line, base)})" if wrap.script_line is not None else ""
        )
    elif wrap.by == "script":
        who = f"the script at {_line(wrap.script_line, base)}"
    else:
        who = f"{_line(wrap.caller, base)}" + (
            f" (from the script at {_line(wrap.script_line, base)})"
            if wrap.script_line is not None
            else ""
        )
    if wrap.is_ddp:
        what = (
            f"{wrap.type}(device_ids={_ids(wrap.device_ids)}, output_device={wrap.output_device!r})"
        )
    else:
        what = f"no wrapper (returned the {wrap.type})"
    placed = f"{'module' if wrap.is_ddp else 'model'} on {devices.describe(wrap.parameter_devices)}"
    return f"{_INDENT}wrap {number}: {who}: {what}, {placed}: {_ending(wrap.error, wrap.by)}"


def _ending(error: RankError | None, by: str) -> str:
    if error is None:
        return "ok"
    if by == "runner":
        return f"failed with {error.type}"
    # The config's keys do not reach this call: say where the fix goes.
    return f"failed with {error.type} (not the Runner's call: the fix goes in the code shown)"


def _init_dist_line(call: InitDistCall, base: Path) -> str:
    who = "Runner.setup_env"
    if call.by == "script":
        who = f"the script at {_line(call.script_line, base)}"
    elif call.by == "library":
        who = f"code called from the script at {_line(call.script_line, base)}"
    return (
        f"{_INDENT}init_dist: mmengine.dist.init_dist(launcher={call.launcher!r}, "
        f"backend={call.backend!r}) by {who}: {_ending(call.error, call.by)}"
    )


def _ended_line(result: RankResult) -> str:
    if result.script_end == "stopped":
        return f"{_INDENT}stopped at {result.stopped_at}: no training step ran"
    if result.script_end == "returned":
        return f"{_INDENT}ended: the script returned before training started"
    if result.script_end == "exited":
        return f"{_INDENT}ended: the script called sys.exit(0) before training started"
    what = result.error.type if result.error is not None else "an exception"
    return f"{_INDENT}ended: the script raised {what}: no training step ran"


def _entry_lines(result: RankResult, base: Path) -> list[str]:
    lines = [_init_dist_line(call, base) for call in result.init_dist_calls]
    lines += [_wrap_line(number, wrap, base) for number, wrap in enumerate(result.wraps, 1)]
    if result.script_end is not None:
        lines.append(_ended_line(result))
    return lines


def _result_lines(result: RankResult, report: DryRunReport) -> list[str]:
    status = _status(result)
    lines = [f"rank {result.rank} (LOCAL_RANK {result.local_rank}): {status}"]
    if result.mmengine_device is not None:
        lines.append(f"{_INDENT}mmengine.device.get_device(): {result.mmengine_device!r}")
    if result.process_group_backend is not None:
        lines.append(f"{_INDENT}process group: {result.process_group_backend}")
    if result.parameter_devices or result.buffer_devices:
        lines.append(
            f"{_INDENT}parameters: {devices.describe(result.parameter_devices)}"
            f"  buffers: {devices.describe(result.buffer_devices)}"
        )
    if result.phase in ("wrap", "done"):
        lines.append(f"{_INDENT}wrapper: {_wrapper_line(result.wrapper)}")
    if result.error is not None:
        first, *rest = result.error.headline.splitlines() or [""]
        lines.append(f"{_INDENT}error: {first}")
        lines += [f"{_INDENT}       {line}" for line in rest]
    for hit in report.rule_hits.get(result.rank, ()):
        lines.append(
            f"{_INDENT}-> {hit.code} catches this statically ({hit.why}); `cfglint rule {hit.code}`"
        )
    if report.entry is not None:
        lines += _entry_lines(result, report.entry.cwd)
    if result.process_exit_code not in (0, None):
        lines.append(
            f"{_INDENT}rank process: exited with code {result.process_exit_code} "
            "after writing its result"
        )
    return lines


def _outcome_lines(outcome: RankOutcome, report: DryRunReport) -> list[str]:
    if isinstance(outcome, RankResult):
        return _result_lines(outcome, report)
    lines = [f"rank {outcome.rank}: LOST: {outcome.reason}"]
    lines += [f"{_INDENT}| {line}" for line in outcome.log_tail.splitlines()[-10:]]
    return lines


def _verdict(report: DryRunReport) -> str:
    if report.exit_code == EXIT_OK:
        if report.entry is not None:
            return (
                f"ok: all {report.world_size} ranks ran the entry script through its wraps; "
                "no training step ran"
            )
        return f"ok: all {report.world_size} ranks went through MMEngine's wrap path"
    if report.exit_code == EXIT_ERROR:
        return "error: " + "; ".join(report.errors)
    return f"failed: {len(report.problems)} problem(s)"


def command_line(script: Path, args: Sequence[str]) -> str:
    """`SCRIPT ARGS...` as a shell would take it back."""
    return shlex.join([str(script), *args])


def _header(report: DryRunReport) -> str:
    where = f"target {report.target.name} (device {report.target.device!r})"
    if report.entry is not None:
        ran = command_line(report.entry.script, report.entry.args)
        return f"{ran}: dry run of the entry script for {where}, {report.world_size} rank(s)"
    return f"{report.config}: dry run for {where}, {report.world_size} rank(s)"


def render_text(report: DryRunReport) -> str:
    lines = [_header(report)]
    for outcome in report.outcomes:
        lines.extend(_outcome_lines(outcome, report))
    lines += [f"note: {note}" for note in report.notes]
    lines += [f"warning: {warning}" for warning in report.warnings]
    lines += [f"problem: {problem}" for problem in report.problems]
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"
