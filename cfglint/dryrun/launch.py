"""Start N fresh rank processes, wait for them with a deadline, and reap every one.

Each rank is a new interpreter (never a fork of this one) in its own session, so a hung
rank and anything it started can be killed as a group.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cfglint.dryrun.result import (
    LostRank,
    RankOutcome,
    WorkerRequest,
    rank_result_from_json,
)

Launcher = Literal["entry-point", "pytorch", "none"]
_POLL_S = 0.05
_LOG_TAIL_CHARS = 2000
# Ranks run the same steps, so once one has left the others follow within seconds; one that
# does not is waiting on a collective with a rank that is gone.
STRAGGLER_GRACE_S = 30.0


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    config: Path
    world_size: int
    launcher: Launcher
    timeout_s: float
    sys_path: tuple[Path, ...]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def rank_environment(rank: int, world_size: int, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        RANK=str(rank),
        LOCAL_RANK=str(rank),  # one host: local rank = global rank
        WORLD_SIZE=str(world_size),
        LOCAL_WORLD_SIZE=str(world_size),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        PYTHONUNBUFFERED="1",
    )
    return env


@dataclass
class _Child:
    rank: int
    process: subprocess.Popen[bytes]
    result_path: Path
    log_path: Path


def _start(plan: LaunchPlan, rank: int, port: int, folder: Path) -> _Child:
    result_path = folder / f"rank{rank}.json"
    log_path = folder / f"rank{rank}.log"
    request = WorkerRequest(
        config=str(plan.config),
        result_path=str(result_path),
        launcher=plan.launcher,
        timeout_s=plan.timeout_s,
        sys_path=tuple(str(path) for path in plan.sys_path),
    )
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "cfglint.dryrun.worker", json.dumps(request.to_json())],
            env=rank_environment(rank, plan.world_size, port),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return _Child(rank, process, result_path, log_path)


def _kill(child: _Child) -> None:
    if child.process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.process.pid, signal.SIGKILL)
    child.process.wait()


def _tail(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-_LOG_TAIL_CHARS:].strip()


def _outcome(child: _Child, timed_out: bool, waited_s: float) -> RankOutcome:
    if child.result_path.is_file():
        try:
            data = json.loads(child.result_path.read_text(encoding="utf-8"))
            return rank_result_from_json(data)
        except (ValueError, KeyError, TypeError) as error:
            return LostRank(child.rank, f"unreadable result: {error}", _tail(child.log_path))
    if timed_out:
        reason = f"no result after {waited_s:.0f} s: killed (a hung rank, see --timeout)"
    else:
        reason = f"exited with code {child.process.returncode} without a result"
    return LostRank(child.rank, reason, _tail(child.log_path))


def run_ranks(
    plan: LaunchPlan, on_rank_done: Callable[[int], None] | None = None
) -> list[RankOutcome]:
    """Run every rank to the end or to the deadline; all children are reaped on return."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="cfglint-dryrun-") as temporary:
        folder = Path(temporary)
        children: list[_Child] = []
        timed_out = False
        started = time.monotonic()
        try:
            children = [_start(plan, rank, port, folder) for rank in range(plan.world_size)]
            started = time.monotonic()
            deadline = started + plan.timeout_s
            running = set(range(len(children)))
            while running:
                for index in sorted(running):
                    if children[index].process.poll() is not None:
                        running.discard(index)
                        if on_rank_done is not None:
                            on_rank_done(children[index].rank)
                if running and len(running) < len(children):
                    deadline = min(deadline, time.monotonic() + STRAGGLER_GRACE_S)
                if running and time.monotonic() >= deadline:
                    timed_out = True
                    break
                time.sleep(_POLL_S)
        finally:
            # Also on Ctrl-C and on any error here: no child outlives the command.
            for child in children:
                _kill(child)
        waited_s = time.monotonic() - started if children else 0.0
        return [_outcome(child, timed_out, waited_s) for child in children]
