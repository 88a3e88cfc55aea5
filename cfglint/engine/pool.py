"""Checking configs in worker processes, on every core the machine gives this process; and
any other work over many configs the same way (`map_in_workers`: the fix loop's baselines and
verdicts, engine/fixes.py).

The workers are forked (Linux only; elsewhere, and for a few configs, everything runs in this
process): they start as copies of this one, with the modules, the settings and the inheritance
index already there, and each checks its share with its own Loader (engine/config_check.py).
What comes back per config is its outcome (engine/outcome.py), a few hundred bytes to pickle; a
resolved tree would cost more to ship than to resolve again.

Shares: the configs keep the order the check gives them (the files of a folder next to each
other; configs of one folder tree share most of their bases), cut into one contiguous range per
worker, handed out a chunk at a time. A worker that finishes its range takes chunks from the
end of the longest range left, so most bases are parsed by one worker only. This process hands
out the chunks and collects the outcomes, in whatever order they come: the caller puts them back
in its own order, so the output is the one a single process gives.

A worker that dies (killed, or an error outside any one config) loses nothing: what it had not
sent back is checked here afterwards, where the same error, if it is cfglint's, is reported as a
run in one process reports it.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from cfglint import files
from cfglint.engine.config_check import ConfigChecker
from cfglint.engine.outcome import ConfigOutcome

# Forces the number of worker processes (1: no worker); else one per core not busy now.
WORKERS_VARIABLE = "CFGLINT_WORKERS"
# Below this many configs per worker, forking and each worker's first bases cost more than the
# share saves (docs/benchmarks.md, "Speed").
MIN_CONFIGS_PER_WORKER = 40
CHUNK = 16

Job = tuple[Path, bool]  # a config and whether the command line names or finds it
# Told of each outcome computed and of what its process read, to store it in a result cache.
Done = Callable[[ConfigOutcome, bool], None]


def worker_count(jobs: int) -> int:
    """How many workers to start for this many configs (1: check them here): one per core
    this process may use that other processes are not running on right now (on a machine
    whose cores are busy, workers only add their start-up and slow each other down:
    docs/benchmarks.md, "Speed")."""
    configured = os.environ.get(WORKERS_VARIABLE, "").strip()
    if configured.isdigit() and int(configured) >= 1:
        return min(int(configured), max(jobs, 1))
    if not sys.platform.startswith("linux"):
        return 1
    cores = len(os.sched_getaffinity(0))
    idle = cores - _others_running()
    return max(1, min(cores, idle, jobs // MIN_CONFIGS_PER_WORKER))


def _others_running(samples: int = 5) -> int:
    """How many other processes (threads) are running or waiting for a core now: the fewest
    of a few looks at /proc/loadavg a millisecond apart (one look may catch a passing shell).
    The load average itself lags a minute behind, and counts this command's own last run."""
    fewest: int | None = None
    for sample in range(samples):
        if sample:
            time.sleep(0.001)
        try:
            with open("/proc/loadavg", encoding="ascii") as handle:
                running = int(handle.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return 0
        fewest = running if fewest is None else min(fewest, running)
    return max(0, (fewest or 1) - 1)  # this process is one of them


def check_in_workers(
    checker: ConfigChecker,
    jobs: Sequence[Job],
    workers: int,
    done: Done,
    progress: Callable[[Path], None] | None = None,
) -> list[ConfigOutcome]:
    """The outcome of each job, in the jobs' order. `done` is called in the process that
    computed an outcome, right after (a worker stores it in the result cache itself)."""

    def check(index: int) -> ConfigOutcome:
        path, named = jobs[index]
        outcome = checker.check(path, named)
        done(outcome, named)
        return outcome

    def told(outcome: ConfigOutcome) -> None:
        if progress is not None:
            progress(outcome.path)

    return map_in_workers(len(jobs), check, workers, told)


Result = TypeVar("Result")


def map_in_workers(
    count: int,
    compute: Callable[[int], Result],
    workers: int,
    told: Callable[[Result], None] | None = None,
) -> list[Result]:
    """`compute(index)` for each index below `count`, in `workers` forked processes (1: here),
    in the indexes' order. `told(result)` is called here as each result comes in, wherever it
    was computed. What a worker does not send back (it died) is computed here afterwards. Each
    result is pickled back: a small value, never a tree."""
    results: dict[int, Result] = {}

    def take(index: int, result: Result) -> None:
        results[index] = result
        if told is not None:
            told(result)

    if workers > 1 and count > 1 and hasattr(os, "fork"):
        _Scheduler(count, compute, workers, take).run()
    for index in range(count):
        if index not in results:  # a worker died on it, or no worker ran
            take(index, compute(index))
    return [results[index] for index in range(count)]


@dataclass
class _Worker:
    pid: int
    to_worker: int  # pipe ends held by this process
    from_worker: int
    range_index: int  # the range it takes its chunks from first
    decoder: _Decoder


class _Scheduler:
    def __init__(
        self,
        count: int,
        compute: Callable[[int], object],
        workers: int,
        take: Callable[[int, Any], None],
    ) -> None:
        self._compute = compute
        self._take = take
        size = -(-count // workers)
        self._ranges = [
            list(range(start, min(start + size, count))) for start in range(0, count, size)
        ]
        self._workers: dict[int, _Worker] = {}
        # What a worker reads matters here only to whoever records this run's reads (the
        # result cache).
        self._forward_reads = files.observing()

    def run(self) -> None:
        try:
            for range_index in range(len(self._ranges)):
                self._start(range_index)
            while self._workers:
                ready, _, _ = select.select(list(self._workers), [], [])
                for descriptor in ready:
                    self._answer(self._workers[descriptor])
        finally:
            for worker in list(self._workers.values()):
                self._stop(worker, kill=True)

    def _start(self, range_index: int) -> None:
        to_read, to_write = os.pipe()
        from_read, from_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's code
            code = 1
            try:
                os.close(to_write)
                os.close(from_read)
                for other in self._workers.values():
                    os.close(other.to_worker)
                    os.close(other.from_worker)
                _work(self._compute, to_read, from_write, forward_reads=self._forward_reads)
                code = 0
            except BaseException:  # what it had not sent back is computed by the parent
                pass
            finally:
                os._exit(code)
        os.close(to_read)
        os.close(from_write)
        worker = _Worker(pid, to_write, from_read, range_index, _Decoder())
        self._workers[from_read] = worker
        self._hand_out(worker)

    def _answer(self, worker: _Worker) -> None:
        message = _receive(worker.from_worker)
        if message is None:  # it died: its chunk is computed here afterwards
            self._stop(worker, kill=False)
            return
        results, reads = cast(
            tuple[list[tuple[int, object]], list[files.Read]],
            worker.decoder.loads(message),
        )
        for read in reads:
            files.tell(read)
        for index, result in results:
            self._take(index, result)
        self._hand_out(worker)

    def _hand_out(self, worker: _Worker) -> None:
        own = self._ranges[worker.range_index]
        if own:
            chunk, own[:] = own[:CHUNK], own[CHUNK:]
        else:
            longest = max(self._ranges, key=len)
            chunk, longest[:] = longest[-CHUNK:], longest[:-CHUNK]
        if not chunk:
            self._stop(worker, kill=False)
            return
        try:
            _send(worker.to_worker, pickle.dumps(chunk))
        except OSError:
            self._stop(worker, kill=False)

    def _stop(self, worker: _Worker, *, kill: bool) -> None:
        del self._workers[worker.from_worker]
        for descriptor in (worker.to_worker, worker.from_worker):
            os.close(descriptor)  # a worker waiting for work reads the end of its pipe
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)
        os.waitpid(worker.pid, 0)


def _work(
    compute: Callable[[int], object],
    requests: int,
    replies: int,
    *,
    forward_reads: bool,
) -> None:
    reads: list[files.Read] = []
    encoder = _Encoder()
    with files.observed(reads.append) if forward_reads else contextlib.nullcontext():
        while True:
            message = _receive(requests)
            chunk = cast(list[int], pickle.loads(message)) if message else []
            if not chunk:
                return
            results = [(index, compute(index)) for index in chunk]
            _send(replies, encoder.dumps((results, reads)))
            reads.clear()


class _Encoder:
    """Pickles a worker's messages with each path sent once: a Path costs more to unpickle
    than the rest of an outcome, and the configs of a project share most of theirs."""

    def __init__(self) -> None:
        self._ids: dict[Path, int] = {}

    def dumps(self, value: object) -> bytes:
        new: list[str] = []
        ids = self._ids

        def persistent_id(item: object) -> int | None:
            if not isinstance(item, Path):
                return None
            found = ids.get(item)
            if found is None:
                found = ids[item] = len(ids)
                new.append(str(item))
            return found

        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.persistent_id = persistent_id  # type: ignore[method-assign]
        pickler.dump(value)
        return pickle.dumps((new, buffer.getvalue()), protocol=pickle.HIGHEST_PROTOCOL)


class _Decoder:
    """The other end of one worker's _Encoder."""

    def __init__(self) -> None:
        self._paths: list[Path] = []

    def loads(self, data: bytes) -> object:
        new, body = pickle.loads(data)
        self._paths.extend(map(Path, new))
        unpickler = pickle.Unpickler(io.BytesIO(body))
        unpickler.persistent_load = self._paths.__getitem__  # type: ignore[method-assign]
        return unpickler.load()


_LENGTH = struct.Struct("!Q")


def _send(descriptor: int, data: bytes) -> None:
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _receive(descriptor: int) -> bytes | None:
    """The next message; None when the other end is closed."""
    header = _read_exactly(descriptor, _LENGTH.size)
    if header is None:
        return None
    return _read_exactly(descriptor, _LENGTH.unpack(header)[0])


def _read_exactly(descriptor: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    left = size
    while left:
        try:
            part = os.read(descriptor, min(left, 1 << 20))
        except OSError:
            return None
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
