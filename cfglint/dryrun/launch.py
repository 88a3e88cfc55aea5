"""Start N fresh rank processes, wait for them with a deadline, and reap every one.

Each rank is a new interpreter (never a fork of this one) in its own session, so a hung
rank and anything it started can be killed as a group. Because the ranks are out of reach of
a terminal's Ctrl-C or a CI runner's cancel, the launcher kills them itself on SIGINT, SIGTERM
and SIGHUP, and each rank kills itself if the launcher dies (see `lifeline.die_with_parent`).
What a rank command is (the config worker, the entry-script probe) is the plan's business.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Literal

from cfglint.dryrun.result import (
    PHASES,
    LostRank,
    Phase,
    PhaseMark,
    RankOutcome,
    RankResult,
    WorkerRequest,
    rank_result_from_json,
)

Launcher = Literal["entry-point", "pytorch", "none"]
_POLL_S = 0.05
_LOG_TAIL_CHARS = 2000
# Ranks run the same steps, so once one has left the others follow within seconds; one that
# does not is waiting on a collective with a rank that is gone. Not with launcher 'none': there
# the ranks share nothing and each gets the whole --timeout.
STRAGGLER_GRACE_S = 30.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(BaseException):
    """The launcher got a stop signal; every rank was killed and reaped before this was raised."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _StopSignals:
    """Turn SIGINT/SIGTERM/SIGHUP into `Stopped`, except while children are started or killed.

    While `holding`, a signal is only remembered, so no child is started without being
    recorded and no kill is cut short; it is raised once holding ends.
    """

    def __init__(self) -> None:
        self.received: int | None = None
        self.holding = False

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum
        if not self.holding:
            raise Stopped(signum)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # only the main thread may set handlers; the caller's own handling applies
            return
        previous = {signum: signal.signal(signum, self._handle) for signum in STOP_SIGNALS}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if self.received is not None:
            raise Stopped(self.received)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def raise_if_received(self) -> None:
        if self.received is not None:
            raise Stopped(self.received)


@dataclass(frozen=True, slots=True)
class RankFiles:
    """Where one rank writes: its result, its phase file and its log (stdout and stderr)."""

    rank: int
    result: Path
    phase: Path
    log: Path

    @staticmethod
    def in_folder(folder: Path, rank: int) -> RankFiles:
        return RankFiles(
            rank,
            folder / f"rank{rank}.json",
            folder / f"rank{rank}.phase.json",
            folder / f"rank{rank}.log",
        )


# The command line that starts one rank (a fresh interpreter), given where it writes.
RankCommand = Callable[[RankFiles], list[str]]


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    world_size: int
    timeout_s: float
    command: RankCommand
    # Ranks see no CUDA, so mmengine.device.get_device() resolves what a host without CUDA does.
    hide_cuda: bool = False
    # Once one rank has left, the others get STRAGGLER_GRACE_S more (see the constant).
    straggler_grace: bool = True
    cwd: Path | None = None  # None: this process's
    # Also the variables torchrun sets besides RANK ... MASTER_PORT (an entry script may read
    # them, and a library it calls may).
    torchrun_env: bool = False
    # What a rank that never said which step it was in was doing, for the report.
    starting: str = "before it loaded the config"


def worker_command(
    config: Path, launcher: Launcher, timeout_s: float, sys_path: Sequence[Path]
) -> RankCommand:
    """A config dry run's rank: `python -m cfglint.dryrun.worker REQUEST_JSON`."""

    def command(files: RankFiles) -> list[str]:
        request = WorkerRequest(
            config=str(config),
            result_path=str(files.result),
            launcher=launcher,
            timeout_s=timeout_s,
            sys_path=tuple(str(path) for path in sys_path),
            phase_path=str(files.phase),
            parent_pid=os.getpid(),
        )
        return [sys.executable, "-m", "cfglint.dryrun.worker", json.dumps(request.to_json())]

    return command


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _torchrun_variables(rank: int, world_size: int) -> dict[str, str]:
    """What torchrun's local agent adds for one host and one restart-free run
    (torch/distributed/elastic/agent/server/local_elastic_agent.py)."""
    variables = {
        "GROUP_RANK": "0",
        "GROUP_WORLD_SIZE": "1",
        "ROLE_RANK": str(rank),
        "ROLE_WORLD_SIZE": str(world_size),
        "ROLE_NAME": "default",
        "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": "0",
        "TORCHELASTIC_RUN_ID": "none",
        # No agent here: rank 0 hosts the rendezvous store itself, as with a plain env:// group.
        "TORCHELASTIC_USE_AGENT_STORE": "False",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
    }
    if "OMP_NUM_THREADS" not in os.environ and world_size > 1:
        variables["OMP_NUM_THREADS"] = "1"  # torchrun's default with more than one process
    return variables


def rank_environment(
    rank: int,
    world_size: int,
    port: int,
    *,
    hide_cuda: bool = False,
    torchrun_env: bool = False,
) -> dict[str, str]:
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
    if torchrun_env:
        env.update(_torchrun_variables(rank, world_size))
    if hide_cuda:
        # Read by the CUDA runtime when torch first touches it: set before the rank starts.
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


@dataclass
class _Child:
    files: RankFiles
    process: subprocess.Popen[bytes] = field(init=False)  # set by _start
    killed: bool = False  # still running when the launcher killed it

    @property
    def rank(self) -> int:
        return self.files.rank

    @property
    def result_path(self) -> Path:
        return self.files.result

    @property
    def log_path(self) -> Path:
        return self.files.log

    @property
    def phase_path(self) -> Path:
        return self.files.phase


def _start(plan: LaunchPlan, rank: int, port: int, folder: Path) -> _Child:
    child = _Child(RankFiles.in_folder(folder, rank))
    environment = rank_environment(
        rank, plan.world_size, port, hide_cuda=plan.hide_cuda, torchrun_env=plan.torchrun_env
    )
    with child.log_path.open("wb") as log:
        child.process = subprocess.Popen(
            plan.command(child.files),
            env=environment,
            cwd=plan.cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return child


def _ended(child: _Child) -> bool:
    """Whether the rank process has ended. What it left running in its process group (a
    subprocess the rank's code started) is killed first, while the rank's pid is not yet
    reaped and so cannot name another group."""
    if child.process.returncode is not None:
        return True
    try:
        flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
        ended = os.waitid(os.P_PID, child.process.pid, flags) is not None
    except (AttributeError, OSError):  # no waitid on this platform: poll alone
        return child.process.poll() is not None
    if ended:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.process.pid, signal.SIGKILL)
        child.process.wait()
    return ended


def _kill(child: _Child) -> None:
    if child.process.poll() is None:
        child.killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.process.pid, signal.SIGKILL)
    child.process.wait()


def _tail(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-_LOG_TAIL_CHARS:].strip()


def _mark(child: _Child) -> PhaseMark | None:
    try:
        return PhaseMark.from_json(json.loads(child.phase_path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@dataclass
class _Wait:
    """How the wait ended, for the words on the ranks that had to be killed."""

    timeout_s: float
    started: float = field(default_factory=time.monotonic)
    finished: list[int] = field(default_factory=list)  # ranks in the order they left
    straggler_deadline: float | None = None
    ended_by: Literal["all-finished", "timeout", "stragglers", "stopped"] = "stopped"

    def kill_reason(self) -> str:
        waited = time.monotonic() - self.started
        if self.ended_by == "stragglers":
            leavers = ", ".join(map(str, self.finished))
            return (
                f"still running {STRAGGLER_GRACE_S:.0f} s after rank(s) {leavers} had "
                "finished: killed"
            )
        if self.ended_by == "timeout":
            return f"no result after {waited:.0f} s (--timeout {self.timeout_s:g}): killed"
        return f"stopped by a signal after {waited:.0f} s: killed"


def _exit_description(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by signal {signal.Signals(-returncode).name}"
        return f"killed by signal {-returncode}"
    return f"exited with code {returncode}"


def _where(mark: PhaseMark | None, plan: LaunchPlan) -> str:
    if mark is None:
        return f"while starting ({plan.starting})"
    return f"in {mark.phase} ({mark.doing})"


def _position(phase: Phase | None) -> int:
    return -1 if phase is None else PHASES.index(phase)


def _lost(
    child: _Child,
    marks: dict[int, PhaseMark | None],
    results: dict[int, RankResult],
    wait: _Wait,
    plan: LaunchPlan,
) -> LostRank:
    mark = marks[child.rank]
    phase = mark.phase if mark is not None else None
    tail = _tail(child.log_path)
    if not child.killed:
        reason = (
            f"died {_where(mark, plan)}: {_exit_description(child.process.returncode)} "
            "without a result"
        )
        return LostRank(child.rank, reason, tail, phase, died=True)
    behind = []
    if mark is not None and mark.waits_for_ranks:
        for other, other_mark in marks.items():
            if other == child.rank:
                continue
            other_phase = (
                results[other].phase
                if other in results
                else (other_mark.phase if other_mark is not None else None)
            )
            if _position(other_phase) < _position(phase):
                behind.append(other)
    if behind:
        ranks = ", ".join(map(str, behind))
        reason = (
            f"waiting {_where(mark, plan)} for rank(s) {ranks}, which never got there; "
            f"{wait.kill_reason()}"
        )
    else:
        reason = f"hung {_where(mark, plan)}: {wait.kill_reason()}"
    return LostRank(child.rank, reason, tail, phase, died=False)


def _outcomes(children: Sequence[_Child], wait: _Wait, plan: LaunchPlan) -> list[RankOutcome]:
    marks = {child.rank: _mark(child) for child in children}
    results: dict[int, RankResult] = {}
    unreadable: dict[int, str] = {}
    for child in children:
        if not child.result_path.is_file():
            continue
        try:
            data = json.loads(child.result_path.read_text(encoding="utf-8"))
            result = rank_result_from_json(data)
        except (ValueError, KeyError, TypeError) as error:
            unreadable[child.rank] = f"unreadable result: {error}"
            continue
        # A rank killed after writing its result (stuck leaving) still reported everything.
        exit_code = None if child.killed else child.process.returncode
        results[child.rank] = dataclasses.replace(result, process_exit_code=exit_code)
    outcomes: list[RankOutcome] = []
    for child in children:
        if child.rank in results:
            outcomes.append(results[child.rank])
        elif child.rank in unreadable:
            mark = marks[child.rank]
            outcomes.append(
                LostRank(
                    child.rank,
                    unreadable[child.rank],
                    _tail(child.log_path),
                    mark.phase if mark is not None else None,
                    died=True,
                )
            )
        else:
            outcomes.append(_lost(child, marks, results, wait, plan))
    return outcomes


def _wait(
    children: Sequence[_Child],
    plan: LaunchPlan,
    wait: _Wait,
    on_rank_done: Callable[[int], None] | None,
) -> None:
    deadline = wait.started + plan.timeout_s
    running = {child.rank: child for child in children}
    while running:
        for rank, child in sorted(running.items()):
            if _ended(child):
                del running[rank]
                wait.finished.append(rank)
                if on_rank_done is not None:
                    on_rank_done(rank)
        if not running:
            wait.ended_by = "all-finished"
            return
        if wait.finished and plan.straggler_grace and wait.straggler_deadline is None:
            wait.straggler_deadline = time.monotonic() + STRAGGLER_GRACE_S
        now = time.monotonic()
        if now >= deadline:
            wait.ended_by = "timeout"
            return
        if wait.straggler_deadline is not None and now >= wait.straggler_deadline:
            wait.ended_by = "stragglers"
            return
        time.sleep(_POLL_S)


def run_ranks(
    plan: LaunchPlan, on_rank_done: Callable[[int], None] | None = None
) -> list[RankOutcome]:
    """Run every rank to the end or to the deadline; all children are reaped on return.

    Raises `Stopped` on SIGINT, SIGTERM or SIGHUP, after killing and reaping every rank and
    removing the temporary folder.
    """
    port = free_port()
    signals = _StopSignals()
    with signals.installed():
        with signals.held():
            folder = Path(tempfile.mkdtemp(prefix="cfglint-dryrun-"))
        children: list[_Child] = []
        wait = _Wait(plan.timeout_s)
        try:
            try:
                with signals.held():
                    for rank in range(plan.world_size):
                        children.append(_start(plan, rank, port, folder))
                signals.raise_if_received()
                wait = _Wait(plan.timeout_s)
                _wait(children, plan, wait, on_rank_done)
            finally:
                # Also on a stop signal and on any error here: no child outlives the command.
                with signals.held():
                    for child in children:
                        _kill(child)
            return _outcomes(children, wait, plan)
        finally:
            with signals.held():
                shutil.rmtree(folder, ignore_errors=True)
