"""What one rank reports: the worker writes it as JSON, the parent reads it back.

The schema is documented in docs/dryrun.md; `SCHEMA_VERSION` changes when it does.
Nothing here imports torch or mmengine.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

SCHEMA_VERSION = 3

# Where a rank stopped, in the order the Runner goes through them. A config dry run starts at
# "load"; an entry-script dry run starts at "script" (the script's own code before the Runner)
# and never uses "load". For an entry script the phase is the furthest step reached: the
# script's code between two steps stays in the step before it.
Phase: TypeAlias = Literal["script", "load", "setup_env", "build", "wrap", "done"]
PHASES: tuple[Phase, ...] = ("script", "load", "setup_env", "build", "wrap", "done")

# How the process group came to be (see docs/dryrun.md, "Paths").
DistPath: TypeAlias = Literal["entry-point", "init_dist", "none"]


@dataclass(frozen=True, slots=True)
class Frame:
    file: str
    line: int
    function: str


@dataclass(frozen=True, slots=True)
class SourceLine:
    """A line of the entry script (or of the code that called into a hook), with its text."""

    file: str
    line: int
    function: str
    code: str = ""

    def where(self, base: Path | None = None) -> str:
        """`file:line`, the file relative to `base` when it lies below it."""
        file = self.file
        if base is not None:
            with contextlib.suppress(ValueError):
                file = str(Path(file).relative_to(base))
        return f"{file}:{self.line}"


@dataclass(frozen=True, slots=True)
class RankError:
    phase: Phase
    type: str
    message: str
    frames: tuple[Frame, ...] = ()

    @property
    def headline(self) -> str:
        # `sys.exit()` leaves an empty message: the type alone says it.
        return f"{self.type}: {self.message}" if self.message else self.type


@dataclass(frozen=True, slots=True)
class WrapperInfo:
    type: str
    device_ids: tuple[int | str, ...] | None
    output_device: int | str | None
    is_ddp: bool


# Who asked for a wrap or for init_dist: MMEngine's Runner, the entry script's own line, or
# other code the script called (a library, a helper module of the project).
Caller: TypeAlias = Literal["runner", "script", "library"]


@dataclass(frozen=True, slots=True)
class WrapRecord:
    """One wrap an entry script's rank went through: `Runner.wrap_model` (with the DDP
    constructor it called, if any) or a DDP constructor called outside it."""

    by: Caller
    # The DDP class constructed (MMDistributedDataParallel, ...); for Runner.wrap_model that built
    # no wrapper (not distributed), the type of the model it returned.
    type: str | None
    is_ddp: bool
    # As handed to the constructor (Runner.wrap_model's default [LOCAL_RANK] included).
    device_ids: tuple[int | str, ...] | None = None
    output_device: int | str | None = None
    # The module's devices when the constructor got it (after Runner.wrap_model's
    # `model.to(get_device())`), or of the model Runner.wrap_model returned.
    parameter_devices: tuple[str, ...] = ()
    buffer_devices: tuple[str, ...] = ()
    # Runner.wrap_model only: get_device(), and the devices of the model it was handed.
    mmengine_device: str | None = None
    handed_parameter_devices: tuple[str, ...] = ()
    handed_buffer_devices: tuple[str, ...] = ()
    error: RankError | None = None
    # The code that called the constructor (or Runner.wrap_model), and the entry script's own
    # line on the stack at that moment (the same line when the script called it directly).
    caller: SourceLine | None = None
    script_line: SourceLine | None = None
    # Runner.wrap_model only: the model_wrapper_cfg it got, as plain data (None: none).
    model_wrapper_cfg: Any = None


@dataclass(frozen=True, slots=True)
class LoadedConfig:
    """A `Config.fromfile` call of the entry script, with the model_wrapper_cfg the file gives
    (plain data; None: the file sets none), to tell what the script changed afterwards."""

    file: str
    model_wrapper_cfg: Any = None


@dataclass(frozen=True, slots=True)
class InitDistCall:
    """One call of `mmengine.dist.init_dist` in an entry script's rank."""

    by: Caller
    launcher: str
    backend: str | None
    error: RankError | None = None
    script_line: SourceLine | None = None


# How an entry script's rank ended: it reached the step that starts training (`stopped_at`
# names it) or the script ended by itself first.
ScriptEnd: TypeAlias = Literal["stopped", "returned", "exited", "raised"]


@dataclass(frozen=True, slots=True)
class RankResult:
    rank: int
    local_rank: int
    world_size: int
    phase: Phase
    dist_path: DistPath
    mmengine_device: str | None = None
    cuda_visible_devices: str | None = None
    process_group_backend: str | None = None
    import_paths: tuple[str, ...] = ()
    built_parameter_devices: tuple[str, ...] = ()
    parameter_devices: tuple[str, ...] = ()
    buffer_devices: tuple[str, ...] = ()
    configured_device_ids: str | None = None
    wrapper: WrapperInfo | None = None
    error: RankError | None = None
    unsupported: str | None = None
    # Entry-script dry runs only (empty for a config dry run).
    script_end: ScriptEnd | None = None
    stopped_at: str | None = None  # e.g. "Runner.train", "MMDistributedDataParallel.train_step"
    wraps: tuple[WrapRecord, ...] = ()
    init_dist_calls: tuple[InitDistCall, ...] = ()
    loaded_configs: tuple[LoadedConfig, ...] = ()
    # Who created the default process group, where it was created by a call the probe saw.
    process_group_by: Caller | None = None
    process_group_line: SourceLine | None = None
    # The Runner's launcher as Runner.setup_env saw it (None: no Runner was set up).
    runner_launcher: str | None = None
    # Set by the launcher, not the worker: how the rank process ended (None: killed by the
    # launcher after it had written its result).
    process_exit_code: int | None = 0

    @property
    def ok(self) -> bool:
        return (
            self.error is None
            and self.unsupported is None
            and self.phase == "done"
            and self.process_exit_code in (0, None)
        )


@dataclass(frozen=True, slots=True)
class LostRank:
    """A rank that left no result: it hung (and was killed) or died."""

    rank: int
    reason: str
    log_tail: str = ""
    # The phase the rank last said it was in (None: it never got as far as saying).
    phase: Phase | None = None
    # True: it ended on its own; False: it was still running and the launcher killed it.
    died: bool = False


RankOutcome: TypeAlias = RankResult | LostRank


@dataclass(frozen=True, slots=True)
class WorkerRequest:
    """What the parent hands each rank (besides the environment variables)."""

    config: str
    result_path: str
    launcher: Literal["entry-point", "pytorch", "none"]
    timeout_s: float
    sys_path: tuple[str, ...] = field(default=())
    # Where the rank says which phase it is in, so a hung rank can be told apart.
    phase_path: str = ""
    # The launcher's pid: a rank whose parent is gone kills itself.
    parent_pid: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "result_path": self.result_path,
            "launcher": self.launcher,
            "timeout_s": self.timeout_s,
            "sys_path": list(self.sys_path),
            "phase_path": self.phase_path,
            "parent_pid": self.parent_pid,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> WorkerRequest:
        return WorkerRequest(
            config=str(data["config"]),
            result_path=str(data["result_path"]),
            launcher=data["launcher"],
            timeout_s=float(data["timeout_s"]),
            sys_path=tuple(str(item) for item in data.get("sys_path", [])),
            phase_path=str(data.get("phase_path", "")),
            parent_pid=int(data.get("parent_pid", 0)),
        )


@dataclass(frozen=True, slots=True)
class EntryRequest:
    """What the parent hands each rank of an entry-script dry run (the probe's bootstrap)."""

    script: str  # absolute
    args: tuple[str, ...]  # sys.argv[1:], exactly as given after `--`
    result_path: str
    phase_path: str = ""
    parent_pid: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "script": self.script,
            "args": list(self.args),
            "result_path": self.result_path,
            "phase_path": self.phase_path,
            "parent_pid": self.parent_pid,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> EntryRequest:
        return EntryRequest(
            script=str(data["script"]),
            args=tuple(str(item) for item in data["args"]),
            result_path=str(data["result_path"]),
            phase_path=str(data.get("phase_path", "")),
            parent_pid=int(data.get("parent_pid", 0)),
        )


@dataclass(frozen=True, slots=True)
class PhaseMark:
    """What a rank is doing right now (its phase file), read back for ranks that left no result."""

    phase: Phase
    doing: str
    # The step blocks until every rank reaches it (a rendezvous or a collective).
    waits_for_ranks: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"phase": self.phase, "doing": self.doing, "waits_for_ranks": self.waits_for_ranks}

    @staticmethod
    def from_json(data: dict[str, Any]) -> PhaseMark:
        phase = data["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        return PhaseMark(phase, str(data.get("doing", "")), bool(data.get("waits_for_ranks")))


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value or ())


def _wrapper_from_json(data: dict[str, Any] | None) -> WrapperInfo | None:
    if data is None:
        return None
    device_ids = data.get("device_ids")
    return WrapperInfo(
        type=str(data["type"]),
        device_ids=None if device_ids is None else tuple(device_ids),
        output_device=data.get("output_device"),
        is_ddp=bool(data.get("is_ddp", False)),
    )


def _error_from_json(data: dict[str, Any] | None) -> RankError | None:
    if data is None:
        return None
    frames = tuple(
        Frame(str(f["file"]), int(f["line"]), str(f["function"])) for f in data.get("frames", [])
    )
    return RankError(data["phase"], str(data["type"]), str(data["message"]), frames)


def _ids_from_json(value: Any) -> tuple[int | str, ...] | None:
    return None if value is None else tuple(value)


def _line_from_json(data: dict[str, Any] | None) -> SourceLine | None:
    if data is None:
        return None
    return SourceLine(
        str(data["file"]), int(data["line"]), str(data["function"]), str(data.get("code", ""))
    )


def _wrap_from_json(data: dict[str, Any]) -> WrapRecord:
    return WrapRecord(
        by=data["by"],
        type=data.get("type"),
        is_ddp=bool(data.get("is_ddp", False)),
        device_ids=_ids_from_json(data.get("device_ids")),
        output_device=data.get("output_device"),
        parameter_devices=_strs(data.get("parameter_devices")),
        buffer_devices=_strs(data.get("buffer_devices")),
        mmengine_device=data.get("mmengine_device"),
        handed_parameter_devices=_strs(data.get("handed_parameter_devices")),
        handed_buffer_devices=_strs(data.get("handed_buffer_devices")),
        error=_error_from_json(data.get("error")),
        caller=_line_from_json(data.get("caller")),
        script_line=_line_from_json(data.get("script_line")),
        model_wrapper_cfg=data.get("model_wrapper_cfg"),
    )


def _init_dist_from_json(data: dict[str, Any]) -> InitDistCall:
    backend = data.get("backend")
    return InitDistCall(
        by=data["by"],
        launcher=str(data["launcher"]),
        backend=None if backend is None else str(backend),
        error=_error_from_json(data.get("error")),
        script_line=_line_from_json(data.get("script_line")),
    )


def rank_result_from_json(data: dict[str, Any]) -> RankResult:
    if data.get("schema") != SCHEMA_VERSION:
        raise ValueError(f"worker result schema {data.get('schema')!r}, expected {SCHEMA_VERSION}")
    return RankResult(
        rank=int(data["rank"]),
        local_rank=int(data["local_rank"]),
        world_size=int(data["world_size"]),
        phase=data["phase"],
        dist_path=data["dist_path"],
        mmengine_device=data.get("mmengine_device"),
        cuda_visible_devices=data.get("cuda_visible_devices"),
        process_group_backend=data.get("process_group_backend"),
        import_paths=_strs(data.get("import_paths")),
        built_parameter_devices=_strs(data.get("built_parameter_devices")),
        parameter_devices=_strs(data.get("parameter_devices")),
        buffer_devices=_strs(data.get("buffer_devices")),
        configured_device_ids=data.get("configured_device_ids"),
        wrapper=_wrapper_from_json(data.get("wrapper")),
        error=_error_from_json(data.get("error")),
        unsupported=data.get("unsupported"),
        script_end=data.get("script_end"),
        stopped_at=data.get("stopped_at"),
        wraps=tuple(_wrap_from_json(item) for item in data.get("wraps") or ()),
        init_dist_calls=tuple(
            _init_dist_from_json(item) for item in data.get("init_dist_calls") or ()
        ),
        loaded_configs=tuple(
            LoadedConfig(str(item["file"]), item.get("model_wrapper_cfg"))
            for item in data.get("loaded_configs") or ()
        ),
        process_group_by=data.get("process_group_by"),
        process_group_line=_line_from_json(data.get("process_group_line")),
        runner_launcher=data.get("runner_launcher"),
    )
