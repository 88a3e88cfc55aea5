"""`cfglint dryrun` for people: one block per rank, then notes, warnings and the verdict."""

from __future__ import annotations

from cfglint.dryrun import devices
from cfglint.dryrun.assess import EXIT_ERROR, EXIT_OK, DryRunReport
from cfglint.dryrun.result import RankOutcome, RankResult, WrapperInfo

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
        return f"FAILED in {result.phase}"
    return "wrapped" if result.wrapper is not None else "placed (not wrapped)"


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
                f"{_INDENT}-> {hit.code} catches this statically ({hit.why}); "
                f"`cfglint rule {hit.code}`"
            )
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
        return f"ok: all {report.world_size} ranks went through MMEngine's wrap path"
    if report.exit_code == EXIT_ERROR:
        return "error: " + "; ".join(report.errors)
    return f"failed: {len(report.problems)} problem(s)"


def render_text(report: DryRunReport) -> str:
    lines = [
        f"{report.config}: dry run for target {report.target.name} "
        f"(device {report.target.device!r}), {report.world_size} rank(s)"
    ]
    for outcome in report.outcomes:
        lines.extend(_outcome_lines(outcome, report))
    lines += [f"note: {note}" for note in report.notes]
    lines += [f"warning: {warning}" for warning in report.warnings]
    lines += [f"problem: {problem}" for problem in report.problems]
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"
