"""What one rank reports: the worker writes it as JSON, the parent reads it back.

The schema is documented in docs/dryrun.md; `SCHEMA_VERSION` changes when it does.
Nothing here imports torch or mmengine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

SCHEMA_VERSION = 2

# Where a rank stopped, in the order the Runner goes through them.
Phase: TypeAlias = Literal["load", "setup_env", "build", "wrap", "done"]
PHASES: tuple[Phase, ...] = ("load", "setup_env", "build", "wrap", "done")

# How the process group came to be (see docs/dryrun.md, "Paths").
DistPath: TypeAlias = Literal["entry-point", "init_dist", "none"]


@dataclass(frozen=True, slots=True)
class Frame:
    file: str
    line: int
    function: str


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
    )
