"""One rank of the dry run: `python -m cfglint.dryrun.worker REQUEST_JSON`.

It goes through the Runner's own steps in the Runner's order (`setup_env`, default scope,
`build_model`, `wrap_model`), calling MMEngine's methods themselves on a stand-in that
carries only the attributes those methods read, so what runs is MMEngine's code, not a copy.
It writes one JSON result (schema in docs/dryrun.md) and exits 0; a non-zero exit or a
missing result means the rank itself broke.

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

from cfglint.dryrun.result import SCHEMA_VERSION, Phase, WorkerRequest


class _RunnerStandIn:
    """The attributes `Runner.setup_env` and `Runner.wrap_model` read and write."""

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
            "error": None,
        }

    def step(self, phase: Phase) -> None:
        self.result["phase"] = phase

    def fail(self, error: BaseException) -> _Stop:
        self.result["error"] = {
            "phase": self.result["phase"],
            "type": type(error).__name__,
            "message": str(error),
            "frames": _frames(error),
        }
        return _Stop()

    def write(self) -> None:
        target = Path(self.request.result_path)
        temporary = target.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.result), encoding="utf-8")
        temporary.replace(target)

    def extend_sys_path(self) -> None:
        # What `PYTHONPATH=<repo root>` does in OpenMMLab's tools/dist_train.sh.
        for entry in reversed(self.request.sys_path):
            if entry in sys.path:
                sys.path.remove(entry)
            sys.path.insert(0, entry)

    def run(self) -> None:
        self.extend_sys_path()
        try:
            cfg = self.load()
            stand_in = self.setup_env(cfg)
            model = self.build(cfg, stand_in)
            self.wrap(cfg, stand_in, model)
            self.step("done")
        except _Stop:
            pass
        finally:
            self.record_process_group()
            self.write()
        self.close()

    def load(self) -> Any:
        try:
            from mmengine.config import Config

            # Executes the config's code and imports its `custom_imports`.
            return Config.fromfile(self.request.config)
        except Exception as error:
            raise self.fail(error) from error

    def setup_env(self, cfg: Any) -> _RunnerStandIn:
        self.step("setup_env")
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
                self.init_process_group()
            # `Runner.from_cfg`'s own default for a config without `env_cfg`.
            env_cfg = cfg.get("env_cfg", {"dist_cfg": {"backend": "nccl"}})
            Runner.setup_env(stand_in, env_cfg)
            return stand_in
        except Exception as error:
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
        self.step("build")
        try:
            from mmengine.registry import DefaultScope
            from mmengine.runner import Runner

            scope = cfg.get("default_scope", "mmengine")  # Runner.from_cfg's default
            if scope is not None:
                DefaultScope.get_instance(f"cfglint-dryrun-{os.getpid()}", scope_name=scope)
            model = Runner.build_model(stand_in, cfg["model"])
            self.result["built_parameter_devices"] = _devices(model.parameters())
            return model
        except Exception as error:
            raise self.fail(error) from error

    def wrap(self, cfg: Any, stand_in: _RunnerStandIn, model: Any) -> None:
        self.step("wrap")
        from mmengine.runner import Runner

        try:
            wrapped = Runner.wrap_model(stand_in, cfg.get("model_wrapper_cfg"), model)
        except Exception as error:
            # `model.to()` moved the model in place before the wrapper refused it.
            self.record_devices(model)
            raise self.fail(error) from error
        self.record_wrapper(wrapped)
        self.record_devices(wrapped.module if self.result["wrapper"] is not None else wrapped)

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
        with contextlib.suppress(Exception):
            import torch.distributed as torch_dist

            if torch_dist.is_available() and torch_dist.is_initialized():
                torch_dist.destroy_process_group()


def _plain(value: Any) -> int | str:
    return value if isinstance(value, int) else str(value)


def main(argv: list[str]) -> int:
    request = WorkerRequest.from_json(json.loads(argv[1]))
    _Rank(request).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
