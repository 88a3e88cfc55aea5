"""One rank of the dry run: `python -m cfglint.dryrun.worker REQUEST_JSON`.

It goes through the Runner's own steps in the Runner's order (`setup_env`, `set_randomness`,
default scope, `build_model`, `wrap_model`), calling MMEngine's methods themselves on a stand-in
that carries only the attributes those methods read, so what runs is MMEngine's code, not a copy.
It writes one JSON result (schema in docs/dryrun.md) and leaves with `os._exit(0)`; a non-zero
exit or a missing result means the rank itself broke. Whatever ends a step, `SystemExit` included,
is recorded as that step's failure.

torch and mmengine are imported here only, inside functions.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from cfglint.dryrun.lifeline import die_with_parent
from cfglint.dryrun.rank_io import mark_phase, write_json
from cfglint.dryrun.result import SCHEMA_VERSION, Phase, WorkerRequest
from cfglint.rules.type_names import registry_name
from cfglint.rules.wrapper import FLEXIBLE_RUNNER

# The Runner classes whose path the dry run follows; anything else is refused, not guessed at.
SUPPORTED_RUNNER_TYPES = frozenset({"Runner"})


class _RunnerStandIn:
    """The attributes `Runner.setup_env`, `set_randomness` and `wrap_model` read and write."""

    def __init__(self, cfg: Any, launcher: str, distributed: bool, logger: Any) -> None:
        self.cfg = cfg
        self.launcher = launcher
        self.distributed = distributed
        self.logger = logger


class _Stop(Exception):
    """A step failed; the result already holds the error."""


def _frames(error: BaseException) -> list[dict[str, Any]]:
    return [
        {"file": frame.filename, "line": frame.lineno or 0, "function": frame.name}
        for frame in traceback.extract_tb(error.__traceback__)
    ]


def _devices(tensors: Any) -> list[str]:
    return sorted({str(tensor.device) for tensor in tensors})


def unsupported_runner(cfg: Any) -> str | None:
    """Why this config's runner is not one whose path the dry run follows, or None."""
    runner_type = cfg.get("runner_type")
    if runner_type is None:
        return None
    written = runner_type if isinstance(runner_type, str) else getattr(runner_type, "__name__", "")
    # A registry name may carry its scope, as in 'mmengine.Runner'.
    name = registry_name(written)
    if name in SUPPORTED_RUNNER_TYPES:
        return None
    if name == FLEXIBLE_RUNNER:
        return (
            f"runner_type={written!r}: FlexibleRunner configs are not supported by dryrun "
            "yet (FlexibleRunner places and wraps the model through its `strategy`, not "
            "Runner.wrap_model)"
        )
    return (
        f"runner_type={written or runner_type!r}: dryrun follows mmengine.runner.Runner's path "
        "only; another runner may build and wrap the model its own way"
    )


class _Rank:
    def __init__(self, request: WorkerRequest) -> None:
        self.request = request
        self.result: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "rank": int(os.environ["RANK"]),
            "local_rank": int(os.environ["LOCAL_RANK"]),
            "world_size": int(os.environ["WORLD_SIZE"]),
            "phase": "load",
            "dist_path": "none"
            if request.launcher == "none"
            else ("init_dist" if request.launcher == "pytorch" else "entry-point"),
            "import_paths": list(request.sys_path),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "error": None,
            "unsupported": None,
        }

    def step(self, phase: Phase, doing: str, *, waits_for_ranks: bool = False) -> None:
        self.result["phase"] = phase
        mark_phase(self.request.phase_path, phase, doing, waits_for_ranks)

    def fail(self, error: BaseException) -> _Stop:
        self.result["error"] = {
            "phase": self.result["phase"],
            "type": type(error).__name__,
            "message": str(error),
            "frames": _frames(error),
        }
        return _Stop()

    def write(self) -> None:
        write_json(Path(self.request.result_path), self.result)

    def extend_sys_path(self) -> None:
        # What `PYTHONPATH=<repo root>` does in OpenMMLab's tools/dist_train.sh.
        for entry in reversed(self.request.sys_path):
            if entry in sys.path:
                sys.path.remove(entry)
            sys.path.insert(0, entry)

    def run(self) -> int:
        """Run the steps and write the result; the exit code for the rank process."""
        self.extend_sys_path()
        try:
            self.steps()
        except _Stop:
            pass
        except BaseException as error:  # nothing may end a rank unrecorded
            if self.result["error"] is None:
                self.fail(error)
        with contextlib.suppress(BaseException):
            self.record_process_group()
        try:
            self.write()
        except BaseException:  # no result: the parent reports the rank as lost
            traceback.print_exc()
            return 1
        with contextlib.suppress(BaseException):
            self.close()
        return 0

    def steps(self) -> None:
        cfg = self.load()
        why_not = unsupported_runner(cfg)
        if why_not is not None:
            self.result["unsupported"] = why_not
            return
        stand_in = self.setup_env(cfg)
        model = self.build(cfg, stand_in)
        self.wrap(cfg, stand_in, model)
        self.step("done", "finished")

    def load(self) -> Any:
        self.step("load", "Config.fromfile (runs the config's code and its custom_imports)")
        try:
            from mmengine.config import Config

            # Executes the config's code and imports its `custom_imports`.
            return Config.fromfile(self.request.config)
        except BaseException as error:
            raise self.fail(error) from error

    def setup_env(self, cfg: Any) -> _RunnerStandIn:
        self.step("setup_env", "importing mmengine")
        try:
            from mmengine.device import get_device
            from mmengine.logging import MMLogger
            from mmengine.runner import Runner

            # Decided once, when mmengine.device was imported: what `model.to()` will get.
            self.result["mmengine_device"] = get_device()

            logger = MMLogger.get_instance("cfglint-dryrun", log_level="WARNING")
            launcher = "none" if self.request.launcher == "none" else "pytorch"
            stand_in = _RunnerStandIn(cfg, launcher, launcher != "none", logger)
            if self.request.launcher == "entry-point":
                self.step(
                    "setup_env",
                    "creating the gloo process group (waits for every rank to join)",
                    waits_for_ranks=True,
                )
                self.init_process_group()
            # `Runner.from_cfg`'s own default for a config without `env_cfg`.
            env_cfg = cfg.get("env_cfg", {"dist_cfg": {"backend": "nccl"}})
            self.step(
                "setup_env",
                "Runner.setup_env"
                + (" (mmengine.dist.init_dist)" if self.request.launcher == "pytorch" else "")
                + " and the timestamp broadcast (waits for every rank)",
                waits_for_ranks=stand_in.distributed,
            )
            Runner.setup_env(stand_in, env_cfg)
            # Runner.__init__ seeds right after setup_env (a collective when no seed is set).
            self.step(
                "setup_env",
                "Runner.set_randomness (syncs the seed with every rank)",
                waits_for_ranks=stand_in.distributed,
            )
            Runner.set_randomness(stand_in, **cfg.get("randomness", {"seed": None}))
            return stand_in
        except BaseException as error:
            raise self.fail(error) from error

    def init_process_group(self) -> None:
        import torch.distributed as torch_dist

        torch_dist.init_process_group(
            backend="gloo",
            init_method="env://",
            rank=self.result["rank"],
            world_size=self.result["world_size"],
            timeout=datetime.timedelta(seconds=self.request.timeout_s),
        )

    def build(self, cfg: Any, stand_in: _RunnerStandIn) -> Any:
        self.step("build", "Runner.build_model, the model's own __init__")
        try:
            from mmengine.registry import DefaultScope
            from mmengine.runner import Runner

            scope = cfg.get("default_scope", "mmengine")  # Runner.from_cfg's default
            if scope is not None:
                DefaultScope.get_instance(f"cfglint-dryrun-{os.getpid()}", scope_name=scope)
            model = cfg["model"]
            data_preprocessor = cfg.get("data_preprocessor")
            # Runner.__init__'s own merge, inline there, so it cannot be called on its own.
            if isinstance(model, dict) and data_preprocessor is not None:
                model.setdefault("data_preprocessor", data_preprocessor)
            model = Runner.build_model(stand_in, model)
            self.result["built_parameter_devices"] = _devices(model.parameters())
            return model
        except BaseException as error:
            raise self.fail(error) from error

    def wrap(self, cfg: Any, stand_in: _RunnerStandIn, model: Any) -> None:
        self.step(
            "wrap",
            "Runner.wrap_model; DDP's constructor syncs with every rank",
            waits_for_ranks=stand_in.distributed,
        )
        try:
            from mmengine.runner import Runner

            wrapper_cfg = cfg.get("model_wrapper_cfg")
            if isinstance(wrapper_cfg, dict) and "device_ids" in wrapper_cfg:
                self.result["configured_device_ids"] = repr(wrapper_cfg["device_ids"])
            wrapped = Runner.wrap_model(stand_in, wrapper_cfg, model)
        except BaseException as error:
            # `model.to()` moved the model in place before the wrapper refused it.
            with contextlib.suppress(BaseException):
                self.record_devices(model)
            raise self.fail(error) from error
        try:
            self.record_wrapper(wrapped)
            self.record_devices(wrapped.module if self.result["wrapper"] is not None else wrapped)
        except BaseException as error:
            raise self.fail(error) from error

    def record_devices(self, model: Any) -> None:
        self.result["parameter_devices"] = _devices(model.parameters())
        self.result["buffer_devices"] = _devices(model.buffers())

    def record_wrapper(self, wrapped: Any) -> None:
        from mmengine.model import is_model_wrapper
        from torch.nn.parallel import DistributedDataParallel

        if not is_model_wrapper(wrapped):
            self.result["wrapper"] = None
            return
        device_ids = getattr(wrapped, "device_ids", None)
        output_device = getattr(wrapped, "output_device", None)
        self.result["wrapper"] = {
            "type": type(wrapped).__name__,
            "device_ids": None if device_ids is None else [_plain(d) for d in device_ids],
            "output_device": None if output_device is None else _plain(output_device),
            "is_ddp": isinstance(wrapped, DistributedDataParallel),
        }

    def record_process_group(self) -> None:
        # A report detail, never a reason to lose the result.
        with contextlib.suppress(Exception):
            import torch.distributed as torch_dist

            if torch_dist.is_available() and torch_dist.is_initialized():
                self.result["process_group_backend"] = str(torch_dist.get_backend())

    def close(self) -> None:
        # The result is written; leaving is all that is left.
        import torch.distributed as torch_dist

        if torch_dist.is_available() and torch_dist.is_initialized():
            torch_dist.destroy_process_group()


def _plain(value: Any) -> int | str:
    return value if isinstance(value, int) else str(value)


def main(argv: list[str]) -> int:
    request = WorkerRequest.from_json(json.loads(argv[1]))
    die_with_parent(request.parent_pid)
    return _Rank(request).run()


if __name__ == "__main__":
    code = main(sys.argv)
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
        sys.stderr.flush()
    # Not sys.exit: a thread the config's code left running must not keep the rank alive.
    os._exit(code)
