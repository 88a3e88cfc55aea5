"""`cfglint dryrun`: build the model and run MMEngine's own wrap code on N real ranks.

The parent (this package minus `worker`) never imports torch or mmengine; each rank is a
fresh interpreter running `cfglint.dryrun.worker`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cfglint.dryrun.assess import DryRunReport, TargetView, assess
from cfglint.dryrun.launch import Launcher, LaunchPlan, Stopped, run_ranks
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
    plan = LaunchPlan(
        config=config.resolve(),
        world_size=world_size,
        launcher=launcher,
        timeout_s=timeout_s,
        sys_path=import_paths(config, cwd if cwd is not None else Path.cwd()),
        # The target's host resolves 'cpu': make a host with CUDA resolve it too, through
        # MMEngine's own get_device(), instead of showing a path the target never takes.
        hide_cuda=target.host_resolves == "cpu",
    )
    outcomes = run_ranks(plan, on_rank_done)
    return assess(config, target, world_size, launcher, outcomes)
