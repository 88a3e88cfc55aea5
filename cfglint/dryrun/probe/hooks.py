"""The patches, each applied right after the script itself imported the module that defines it.

- `torch.distributed.distributed_c10d.init_process_group`: who created the process group.
- `torch.nn.parallel.distributed.DistributedDataParallel.__init__`: every DDP wrap (Runner's,
  MMDistributedDataParallel's, the script's own re-wrap), its arguments, the module's devices,
  its exception.
- `mmengine.dist.utils.init_dist`: launcher, backend, exception. Patched in `mmengine.dist.utils`
  before `mmengine.dist` re-exports it and `mmengine.runner.runner` imports it by name.
- `mmengine.config.config.Config.fromfile`: the model_wrapper_cfg the config file gives, to tell
  it from the one the Runner gets after the script changed it.
- `mmengine.runner.runner.Runner`: `setup_env` and `build_model` (where the rank is),
  `wrap_model` (get_device(), devices before and after, the wrapper), and `train`/`val`/`test`,
  which end the rank before they run.

Each wrapped object (the model Runner.wrap_model returned, every DDP) gets instance attributes
for `forward`, `train_step`, `val_step` and `test_step` that end the rank instead: a script
that runs its own loop is stopped at its first step too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, NoReturn

from cfglint.dryrun.probe import model_view
from cfglint.dryrun.probe.frames import constructor_caller, outside, source_line
from cfglint.dryrun.probe.post_import import AfterImport
from cfglint.dryrun.probe.rank_log import RankLog

_TRAINING_STEPS = ("forward", "train_step", "val_step", "test_step")
_RUNNER_ENTRIES = ("train", "val", "test")


def _arguments(function: Callable[..., Any], args: Any, kwargs: Any) -> dict[str, Any]:
    """The call's arguments by name, defaults included; {} if they do not fit (the real call
    then raises its own TypeError)."""
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return {}
    bound.apply_defaults()
    return dict(bound.arguments)


def _replace(owner: object, name: str, value: object) -> None:
    setattr(owner, name, value)


def _where(line: dict[str, Any] | None) -> str:
    return "" if line is None else f" at {line['file']}:{line['line']}"


class Hooks:
    def __init__(self, log: RankLog) -> None:
        self.log = log

    def watched(self) -> dict[str, AfterImport]:
        return {
            "torch.distributed.distributed_c10d": self.patch_c10d,
            "torch.nn.parallel.distributed": self.patch_ddp,
            "mmengine.dist.utils": self.patch_init_dist,
            "mmengine.config.config": self.patch_config,
            "mmengine.runner.runner": self.patch_runner,
        }

    # --- ending the rank where training would start -------------------------------------

    def stopper(self, owner: Any, name: str) -> Callable[..., NoReturn]:
        log = self.log
        at = f"{type(owner).__name__}.{name}"

        def stop(*_args: Any, **_kwargs: Any) -> NoReturn:
            log.stop(at, owner)

        return stop

    def guard(self, model: Any) -> None:
        """The first training step of this wrapped model ends the rank."""
        for name in _TRAINING_STEPS:
            if callable(getattr(type(model), name, None)):
                try:
                    setattr(model, name, self.stopper(model, name))
                except (AttributeError, TypeError):
                    continue

    # --- torch.distributed --------------------------------------------------------------

    def patch_c10d(self, module: ModuleType) -> None:
        original = module.init_process_group
        log = self.log

        @functools.wraps(original)
        def init_process_group(*args: Any, **kwargs: Any) -> Any:
            caller = outside(sys._getframe(1))
            line = log.script_line(caller)
            if log.in_init_dist:
                by, doing = "init_dist", "torch.distributed.init_process_group in init_dist"
            else:
                by = "script" if log.called_by_script(caller) else "library"
                doing = f"torch.distributed.init_process_group{_where(line)}"
            with log.step(
                "setup_env",
                f"{doing} (waits for every rank to join)",
                waits=True,
                after="torch.distributed.init_process_group",
            ):
                result = original(*args, **kwargs)
            if log.process_group_by is None:
                log.process_group_by = by
                log.process_group_line = line
            return result

        _replace(module, "init_process_group", init_process_group)

    def patch_ddp(self, module: ModuleType) -> None:
        ddp = module.DistributedDataParallel
        original = ddp.__init__
        hooks = self

        @functools.wraps(original)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            hooks.ddp_init(original, self, args, kwargs, sys._getframe(1))

        ddp.__init__ = __init__

    def ddp_init(
        self,
        original: Callable[..., None],
        instance: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        frame: Any,
    ) -> None:
        log = self.log
        arguments = _arguments(original, (instance, *args), kwargs)
        module = arguments.get("module")
        caller = constructor_caller(frame, instance)
        open_runner_wrap = next(
            (wrap for wrap in reversed(log.runner_wraps) if wrap["type"] is None), None
        )
        if open_runner_wrap is not None:
            record = open_runner_wrap
        else:
            record = {
                "by": "script" if log.called_by_script(caller) else "library",
                "mmengine_device": None,
                "handed_parameter_devices": [],
                "handed_buffer_devices": [],
            }
            log.wraps.append(record)
        record.update(
            type=type(instance).__name__,
            is_ddp=True,
            device_ids=model_view.plain_ids(arguments.get("device_ids")),
            output_device=None
            if arguments.get("output_device") is None
            else model_view.plain(arguments["output_device"]),
            parameter_devices=model_view.parameter_devices(module),
            buffer_devices=model_view.buffer_devices(module),
            error=None,
        )
        if open_runner_wrap is None:  # a Runner wrap keeps the line that called wrap_model
            record["caller"] = None if caller is None else source_line(caller)
            record["script_line"] = log.script_line(caller)
        where = _where(record["script_line"]) if record["by"] != "runner" else ""
        with log.step(
            "wrap",
            f"the {type(instance).__name__} constructor{where}; DDP's constructor syncs with "
            "every rank",
            waits=True,
            after=f"the {type(instance).__name__} constructor",
        ):
            try:
                original(instance, *args, **kwargs)
            except BaseException as error:
                record["error"] = log.failed(error, "wrap", record)
                raise
        if open_runner_wrap is None:
            log.last_model = instance
            self.guard(instance)

    # --- mmengine.dist --------------------------------------------------------------------

    def patch_init_dist(self, module: ModuleType) -> None:
        original = module.init_dist
        log = self.log

        @functools.wraps(original)
        def init_dist(*args: Any, **kwargs: Any) -> Any:
            arguments = _arguments(original, args, kwargs)
            caller = outside(sys._getframe(1))
            if log.in_runner_setup_env:
                by = "runner"
            else:
                by = "script" if log.called_by_script(caller) else "library"
            launcher = arguments.get("launcher")
            backend = arguments.get("backend")
            record: dict[str, Any] = {
                "by": by,
                "launcher": str(launcher),
                "backend": None if backend is None else str(backend),
                "error": None,
                "script_line": log.script_line(caller),
            }
            log.init_dist_calls.append(record)
            log.in_init_dist += 1
            try:
                with log.step(
                    "setup_env",
                    f"mmengine.dist.init_dist(launcher={launcher!r}, backend={backend!r})"
                    f"{_where(record['script_line']) if by != 'runner' else ''} (waits for "
                    "every rank to join)",
                    waits=True,
                    after="mmengine.dist.init_dist",
                ):
                    return original(*args, **kwargs)
            except BaseException as error:
                record["error"] = log.failed(error, "setup_env")
                raise
            finally:
                log.in_init_dist -= 1

        _replace(module, "init_dist", init_dist)

    # --- mmengine.config.Config -----------------------------------------------------------

    def patch_config(self, module: ModuleType) -> None:
        config = module.Config
        original = config.fromfile
        log = self.log

        @functools.wraps(original)
        def fromfile(*args: Any, **kwargs: Any) -> Any:
            loaded = original(*args, **kwargs)
            arguments = _arguments(original, args, kwargs)
            with contextlib.suppress(Exception):
                log.loaded_configs.append(
                    {
                        "file": str(arguments.get("filename")),
                        "model_wrapper_cfg": model_view.plain_data(loaded.get("model_wrapper_cfg")),
                    }
                )
            return loaded

        # A staticmethod in MMEngine: it stays one.
        config.fromfile = staticmethod(fromfile)

    # --- mmengine.runner.Runner -----------------------------------------------------------

    def patch_runner(self, module: ModuleType) -> None:
        runner = module.Runner
        runner.setup_env = self._setup_env(runner.setup_env)
        runner.build_model = self._build_model(runner.build_model)
        runner.wrap_model = self._wrap_model(runner.wrap_model)
        for name in _RUNNER_ENTRIES:
            runner_entry = getattr(runner, name, None)
            if callable(runner_entry):
                setattr(runner, name, self._runner_entry(runner_entry, name))

    def _setup_env(self, original: Callable[..., Any]) -> Callable[..., Any]:
        log = self.log

        @functools.wraps(original)
        def setup_env(runner: Any, *args: Any, **kwargs: Any) -> Any:
            log.runner_launcher = str(getattr(runner, "launcher", None))
            distributed = bool(getattr(runner, "distributed", False))
            log.in_runner_setup_env += 1
            try:
                with log.step(
                    "setup_env",
                    "Runner.setup_env (mmengine.dist.init_dist when no process group exists, "
                    "then the timestamp broadcast"
                    + ("; waits for every rank)" if distributed else ")"),
                    waits=distributed,
                    after="Runner.setup_env",
                ):
                    return original(runner, *args, **kwargs)
            except BaseException as error:
                log.failed(error, "setup_env")
                raise
            finally:
                log.in_runner_setup_env -= 1

        return setup_env

    def _build_model(self, original: Callable[..., Any]) -> Callable[..., Any]:
        log = self.log

        @functools.wraps(original)
        def build_model(runner: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                with log.step(
                    "build",
                    "Runner.build_model, the model's own __init__",
                    waits=False,
                    after="Runner.build_model",
                ):
                    model = original(runner, *args, **kwargs)
            except BaseException as error:
                log.failed(error, "build")
                raise
            log.built_parameter_devices = model_view.parameter_devices(model)
            return model

        return build_model

    def _wrap_model(self, original: Callable[..., Any]) -> Callable[..., Any]:
        log = self.log
        hooks = self

        @functools.wraps(original)
        def wrap_model(runner: Any, model_wrapper_cfg: Any, model: Any) -> Any:
            caller = outside(sys._getframe(1))
            if isinstance(model_wrapper_cfg, dict) and "device_ids" in model_wrapper_cfg:
                log.configured_device_ids = repr(model_wrapper_cfg["device_ids"])
            # Before the call: wrap_model writes a default `type` into it.
            wrapper_cfg = model_view.plain_data(model_wrapper_cfg)
            record: dict[str, Any] = {
                "by": "runner",
                "type": None,
                "is_ddp": False,
                "device_ids": None,
                "output_device": None,
                "parameter_devices": [],
                "buffer_devices": [],
                "mmengine_device": model_view.mmengine_device(),
                "handed_parameter_devices": model_view.parameter_devices(model),
                "handed_buffer_devices": model_view.buffer_devices(model),
                "error": None,
                "caller": None if caller is None else source_line(caller),
                "script_line": log.script_line(caller),
                "model_wrapper_cfg": wrapper_cfg,
            }
            log.wraps.append(record)
            log.runner_wraps.append(record)
            distributed = bool(getattr(runner, "distributed", False))
            try:
                with log.step(
                    "wrap",
                    "Runner.wrap_model"
                    + ("; DDP's constructor syncs with every rank" if distributed else ""),
                    waits=distributed,
                    after="Runner.wrap_model",
                ):
                    wrapped = original(runner, model_wrapper_cfg, model)
            except BaseException as error:
                if record["error"] is None:
                    record["error"] = log.failed(error, "wrap", record)
                if not record["parameter_devices"]:
                    # `model.to()` moved the model in place before the wrap failed.
                    record["parameter_devices"] = model_view.parameter_devices(model)
                    record["buffer_devices"] = model_view.buffer_devices(model)
                raise
            finally:
                log.runner_wraps.remove(record)
            if record["type"] is None:  # no DDP constructor ran: not distributed
                record["type"] = type(wrapped).__name__
                record["is_ddp"] = model_view.is_ddp(wrapped)
            inner = model_view.unwrapped(wrapped)
            record["parameter_devices"] = model_view.parameter_devices(inner)
            record["buffer_devices"] = model_view.buffer_devices(inner)
            log.last_model = wrapped
            hooks.guard(wrapped)
            return wrapped

        return wrap_model

    def _runner_entry(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        log = self.log

        @functools.wraps(original)
        def entry(runner: Any, *_args: Any, **_kwargs: Any) -> NoReturn:
            log.stop(f"Runner.{name}", getattr(runner, "model", None))

        return entry
