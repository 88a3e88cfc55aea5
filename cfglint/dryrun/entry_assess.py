"""Judge an entry-script dry run: the config dry run's judgement (host, devices, rules), with
what the script itself did (its process group, its init_dist, its own wraps) and its own ways of
failing before anything could be shown."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cfglint.dryrun.assess import (
    DryRunReport,
    EntryView,
    HostFit,
    TargetView,
    Verdict,
    first_line,
    fit_of,
    gathered_warnings,
    host_caused,
    judge_devices,
    judge_host,
    judge_ranks,
    results_of,
    span_notes,
)
from cfglint.dryrun.result import LostRank, RankError, RankOutcome, RankResult, SourceLine
from cfglint.dryrun.rule_map import RuleHit, rules_for

# Phases before any wrap in which a rank that dies cannot show anything about the wrap.
_BEFORE_ANY_WRAP = {"script": "the script", "build": "the model's build"}


def _where(line: SourceLine | None, base: Path) -> str:
    return "" if line is None else f" at {line.where(base)}"


def recorded_errors(result: RankResult) -> Iterator[RankError]:
    """The error that ended the rank, then those a hook saw (the script may have caught them)."""
    seen: set[tuple[str, str]] = set()
    candidates = [result.error]
    candidates += [call.error for call in result.init_dist_calls]
    candidates += [wrap.error for wrap in result.wraps]
    for error in candidates:
        if error is not None and (error.type, error.message) not in seen:
            seen.add((error.type, error.message))
            yield error


def _caused_by_host(result: RankResult, fit: HostFit | None) -> bool:
    return any(host_caused(error, fit) for error in recorded_errors(result))


def rule_hits(result: RankResult, target: TargetView, fit: HostFit | None) -> tuple[RuleHit, ...]:
    if _caused_by_host(result, fit):
        return ()
    hits: dict[str, RuleHit] = {}
    for error in recorded_errors(result):
        for hit in rules_for(error):
            if hit.code in target.rules:
                hits.setdefault(hit.code, hit)
    return tuple(hits.values())


def _init_dist_text(result: RankResult, base: Path) -> str | None:
    call = next(iter(result.init_dist_calls), None)
    if call is None:
        return None
    who = "Runner.setup_env"
    if call.by == "script":
        who = f"the script{_where(call.script_line, base)}"
    elif call.by == "library":
        who = f"code the script called{_where(call.script_line, base)}"
    text = (
        f"{who} called mmengine.dist.init_dist(launcher={call.launcher!r}, "
        f"backend={call.backend!r})"
    )
    return text + (f", which failed with {call.error.type}" if call.error is not None else "")


def path_note(result: RankResult, base: Path) -> str:
    """How the process group came to be on this rank, from what the probe saw."""
    backend = result.process_group_backend or "unknown backend"
    skipped = (
        "; Runner.setup_env then skipped mmengine.dist.init_dist because a process group existed"
        if result.runner_launcher not in (None, "none")
        else ""
    )
    init_dist = _init_dist_text(result, base)
    if result.process_group_by == "script":
        return (
            f"path: the script created the process group itself "
            f"(torch.distributed.init_process_group{_where(result.process_group_line, base)}, "
            f"{backend}){skipped}"
        )
    if result.process_group_by == "library":
        return (
            f"path: code the script called created the process group "
            f"(torch.distributed.init_process_group{_where(result.process_group_line, base)}, "
            f"{backend}){skipped}"
        )
    if init_dist is not None:
        return f"path: {init_dist}"
    if result.runner_launcher == "none":
        return (
            "path: no process group: the Runner's launcher is 'none', so Runner.wrap_model "
            "only moved the model to get_device()"
        )
    return "path: no process group was created before the rank ended"


def python_text(value: Any) -> str:
    """Plain config data written the way a config file writes it."""
    if isinstance(value, dict):
        items = ", ".join(f"{key}={python_text(item)}" for key, item in value.items())
        return f"dict({items})"
    if isinstance(value, list):
        return "[" + ", ".join(python_text(item) for item in value) + "]"
    return repr(value)


def changed_wrapper_note(result: RankResult, base: Path) -> str | None:
    """The script changed model_wrapper_cfg between loading the config and the Runner (seed
    001: the config was right, the script overwrote it)."""
    runner_wrap = next((wrap for wrap in result.wraps if wrap.by == "runner"), None)
    if runner_wrap is None or not result.loaded_configs:
        return None
    loaded = result.loaded_configs[-1]
    if loaded.model_wrapper_cfg == runner_wrap.model_wrapper_cfg:
        return None
    file = loaded.file
    if Path(file).is_absolute():
        with contextlib.suppress(ValueError):
            file = str(Path(file).relative_to(base))
    return (
        f"model_wrapper_cfg: {file} gives {python_text(loaded.model_wrapper_cfg)}, but "
        f"Runner.wrap_model got {python_text(runner_wrap.model_wrapper_cfg)}: the script "
        "changed it after Config.fromfile"
    )


def _import_note(result: RankResult) -> str:
    return (
        "import paths: the script ran with "
        + ", ".join(result.import_paths)
        + " first on sys.path (its own folder, as `python SCRIPT` puts it, then PYTHONPATH)"
    )


def _how_it_ended(result: RankResult) -> str:
    if result.script_end == "returned":
        return "returned"
    if result.script_end == "exited":
        return "called sys.exit(0)"
    return f"stopped at {result.stopped_at}"


def _script_error_line(result: RankResult, entry: EntryView) -> str:
    """The last line of the script itself in the error's frames, e.g. ` (train.py:12)`."""
    if result.error is None:
        return ""
    script = os.path.realpath(entry.cwd / entry.script)
    own = [frame for frame in result.error.frames if os.path.realpath(frame.file) == script]
    if not own:
        return ""
    last = own[-1]
    return f" ({SourceLine(last.file, last.line, last.function).where(entry.cwd)})"


def cannot_run(
    outcomes: Sequence[RankOutcome],
    hits: dict[int, tuple[RuleHit, ...]],
    entry: EntryView,
) -> str | None:
    """Why nothing about the wrap can be shown: the first rank whose script failed or ended
    before any wrap with nothing a rule catches (exit code 2), or None."""
    for outcome in outcomes:
        if isinstance(outcome, LostRank):
            if outcome.died and outcome.phase in _BEFORE_ANY_WRAP:
                return (
                    f"{_BEFORE_ANY_WRAP[outcome.phase]} died before any wrap (rank "
                    f"{outcome.rank}): {outcome.reason}"
                )
            continue
        if outcome.wraps or hits.get(outcome.rank):
            continue
        if outcome.error is not None:
            what = (
                "the model failed to build"
                if outcome.error.phase == "build"
                else ("the script failed before any wrap")
            )
            return (
                f"{what} (rank {outcome.rank}): {first_line(outcome.error)}"
                f"{_script_error_line(outcome, entry)}"
            )
        return (
            f"the script {_how_it_ended(outcome)} before any model wrap (rank "
            f"{outcome.rank}): there is no wrap to show"
        )
    return None


def _recovered_notes(results: Sequence[RankResult]) -> list[str]:
    notes = []
    for result in results:
        if not result.ok:
            continue
        for number, wrap in enumerate(result.wraps, 1):
            if wrap.error is not None:
                notes.append(
                    f"rank {result.rank}: wrap {number} failed with {wrap.error.type} and the "
                    "script went on"
                )
    return notes


def assess_entry(
    entry: EntryView,
    target: TargetView,
    world_size: int,
    outcomes: Sequence[RankOutcome],
) -> DryRunReport:
    results = results_of(outcomes)
    fit, _shown = fit_of(target, results)
    hits = {result.rank: rule_hits(result, target, fit) for result in results}
    verdict = Verdict()
    first = next(iter(results), None)
    if first is not None:
        verdict.notes.append(path_note(first, entry.cwd))
        changed = changed_wrapper_note(first, entry.cwd)
        if changed is not None:
            verdict.notes.append(changed)
        if first.import_paths:
            verdict.notes.append(_import_note(first))
    if judge_host(target, results, verdict):
        verdict.notes.extend(span_notes(results))
        verdict.warnings.extend(gathered_warnings(results))
        verdict.notes.extend(_recovered_notes(results))
        why_not = cannot_run(outcomes, hits, entry)
        if why_not is not None:
            verdict.errors.append(why_not)
        else:
            # A failure the script caught and went on from is not one that ended the rank.
            judge_ranks(outcomes, hits, target, fit, verdict)
            judge_devices(results, target, fit, verdict)
    return verdict.report(entry.config, target, world_size, None, outcomes, hits, entry)
