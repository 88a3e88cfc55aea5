"""`cfglint dryrun --entry SCRIPT -- ARGS...`: the user's own entry script, run unmodified in N
ranks as torchrun would run it, with the probe (`cfglint.dryrun.probe`) loaded before it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.dryrun.assess import DryRunReport, EntryView, TargetView
from cfglint.dryrun.entry_assess import assess_entry
from cfglint.dryrun.launch import LaunchPlan, RankCommand, RankFiles, run_ranks
from cfglint.dryrun.result import EntryRequest

# The files `Config.fromfile` reads: the first script argument naming one is the job's config.
CONFIG_SUFFIXES = (".py", ".yaml", ".yml", ".json")


def config_among(args: Sequence[str], cwd: Path) -> Path | None:
    """The first argument naming an existing config file, as the script will open it (relative
    to the folder it runs in)."""
    for arg in args:
        if not arg.endswith(CONFIG_SUFFIXES):
            continue
        path = Path(arg) if os.path.isabs(arg) else cwd / arg
        if path.is_file():
            return Path(arg)
    return None


def probe_command(script: Path, args: tuple[str, ...]) -> RankCommand:
    def command(files: RankFiles) -> list[str]:
        request = EntryRequest(
            script=str(script),
            args=args,
            result_path=str(files.result),
            phase_path=str(files.phase),
            parent_pid=os.getpid(),
        )
        return [sys.executable, "-m", "cfglint.dryrun.probe", json.dumps(request.to_json())]

    return command


@dataclass(frozen=True, slots=True)
class EntryJob:
    script: Path  # as given on the command line
    args: tuple[str, ...]
    cwd: Path
    config: Path | None = None  # the config among args, for the report


def dry_run_entry(
    job: EntryJob,
    target: TargetView,
    *,
    world_size: int = 2,
    timeout_s: float = 300.0,
    on_rank_done: Callable[[int], None] | None = None,
) -> DryRunReport:
    script = Path(os.path.abspath(job.cwd / job.script))
    plan = LaunchPlan(
        world_size=world_size,
        timeout_s=timeout_s,
        command=probe_command(script, job.args),
        # As for a config: a host with CUDA resolves 'cpu' too when the target's host does.
        hide_cuda=target.ranks_hide_cuda,
        # The ranks run the same script: one still running long after another left is waiting
        # on a collective for a rank that is gone.
        straggler_grace=True,
        cwd=job.cwd,
        torchrun_env=True,
        starting="before the script started",
    )
    outcomes = run_ranks(plan, on_rank_done)
    view = EntryView(script=job.script, args=job.args, cwd=job.cwd, config=job.config)
    return assess_entry(view, target, world_size, outcomes)
