"""`cfglint dryrun`: build the model and run MMEngine's own wrap code on N real ranks.

The parent (this package minus `worker`) never imports torch or mmengine; each rank is a
fresh interpreter running `cfglint.dryrun.worker`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cfglint.dryrun.assess import DryRunReport, TargetView, assess
from cfglint.dryrun.launch import Launcher, LaunchPlan, Stopped, run_ranks, worker_command
from cfglint.dryrun.project import import_paths

__all__ = ["DryRunReport", "Launcher", "Stopped", "TargetView", "dry_run"]


def dry_run(
    config: Path,
    target: TargetView,
    *,
    world_size: int = 2,
    launcher: Launcher = "entry-point",
    timeout_s: float = 300.0,
    cwd: Path | None = None,
    on_rank_done: Callable[[int], None] | None = None,
) -> DryRunReport:
    sys_path = import_paths(config, cwd if cwd is not None else Path.cwd())
    plan = LaunchPlan(
        world_size=world_size,
        timeout_s=timeout_s,
        command=worker_command(config.resolve(), launcher, timeout_s, sys_path),
        # Instead of showing a path the target never takes.
        hide_cuda=target.ranks_hide_cuda,
        # With launcher 'none' the ranks share nothing: each gets the whole timeout.
        straggler_grace=launcher != "none",
    )
    outcomes = run_ranks(plan, on_rank_done)
    return assess(config, target, world_size, launcher, outcomes)
