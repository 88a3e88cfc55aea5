"""What one rank of an entry-script dry run saw, and how it ends: the result is written and the
process leaves with `os._exit`, so nothing of the script runs after the probe has decided."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from cfglint.dryrun.probe import model_view
from cfglint.dryrun.probe.frames import Script, error_frames, source_line
from cfglint.dryrun.rank_io import mark_phase, write_json
from cfglint.dryrun.result import PHASES, SCHEMA_VERSION, EntryRequest, Phase

_BEFORE_RUNNER = "the script's own code, before the Runner"


def _env_int(name: str) -> int:
    try:
        return int(os.environ.get(name, "0"))
    except ValueError:
        return 0


def _causes(error: BaseException) -> Iterator[BaseException]:
    """The error and what it was raised from or while handling, each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


class RankLog:
    def __init__(self, request: EntryRequest, script: Script) -> None:
        self.request = request
        self.script = script
        self.phase: Phase = "script"
        self._doing: list[tuple[str, bool]] = []  # the steps in progress, outermost first
        self._after = _BEFORE_RUNNER
        self.wraps: list[dict[str, Any]] = []
        self.init_dist_calls: list[dict[str, Any]] = []
        self.loaded_configs: list[dict[str, Any]] = []
        # Runner.wrap_model / Runner.setup_env / init_dist calls in progress (innermost last).
        self.runner_wraps: list[dict[str, Any]] = []
        self.in_runner_setup_env = 0
        self.in_init_dist = 0
        # The errors a hook saw leave it, with the phase and the wrap they belong to; the
        # error objects are kept, so an id is never reused while it is here.
        self._failures: dict[int, tuple[BaseException, Phase, dict[str, Any] | None]] = {}
        self.last_model: Any = None
        self.built_parameter_devices: list[str] = []
        self.configured_device_ids: str | None = None
        self.process_group_by: str | None = None
        self.process_group_line: dict[str, Any] | None = None
        self.runner_launcher: str | None = None
        self.import_paths: list[str] = []

    # --- where the rank is, for the report about a rank that hangs --------------------------

    def _mark(self) -> None:
        doing, waits = self._doing[-1] if self._doing else (self._after, False)
        mark_phase(self.request.phase_path, self.phase, doing, waits)

    def begin(self) -> None:
        self._mark()

    @contextlib.contextmanager
    def step(self, phase: Phase, doing: str, *, waits: bool, after: str) -> Iterator[None]:
        if PHASES.index(phase) > PHASES.index(self.phase):
            self.phase = phase
        self._doing.append((doing, waits))
        self._mark()
        ending = "raised"
        try:
            yield
            ending = "returned"
        finally:
            self._doing.pop()
            if not self._doing:
                self._after = f"the script's own code after {after} {ending}"
            self._mark()

    # --- what the hooks tell it ---------------------------------------------------------------

    def failed(
        self, error: BaseException, phase: Phase, wrap: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Remember where `error` came from (the innermost hook first) and describe it."""
        self._failures.setdefault(id(error), (error, phase, wrap))
        return self.describe(error, phase)

    @staticmethod
    def describe(error: BaseException, phase: Phase) -> dict[str, Any]:
        try:
            message = str(error)
        except Exception:  # an exception whose __str__ fails still ended the rank
            message = f"<{type(error).__name__}: str() failed>"
        return {
            "phase": phase,
            "type": type(error).__name__,
            "message": message,
            "frames": error_frames(error),
        }

    def script_line(self, frame: FrameType | None) -> dict[str, Any] | None:
        own = self.script.innermost_frame(frame)
        return None if own is None else source_line(own)

    def called_by_script(self, frame: FrameType | None) -> bool:
        return frame is not None and self.script.owns(frame)

    # --- the end --------------------------------------------------------------------------

    def stop(self, at: str, model: Any) -> NoReturn:
        """Training would start here: record what it would train, and leave before it does."""
        self._end("stopped", model=model, stopped_at=at)

    def script_returned(self) -> NoReturn:
        self._end("returned", model=self.last_model)

    def script_exited(self, leaving: SystemExit) -> NoReturn:
        if leaving.code in (None, 0):
            self._end("exited", model=self.last_model)
        else:
            self.script_raised(leaving)

    def script_raised(self, error: BaseException) -> NoReturn:
        self._end("raised", error=error)

    def _origin(self, error: BaseException) -> tuple[Phase, dict[str, Any] | None]:
        for cause in _causes(error):
            found = self._failures.get(id(cause))
            if found is not None and found[0] is cause:
                return found[1], found[2]
        return "script", None

    def _placement(
        self, model: Any, error: BaseException | None
    ) -> tuple[list[str], list[str], dict[str, Any] | None]:
        """Parameter and buffer devices, and the wrapper, of what the rank ended with."""
        if error is not None:
            _phase, wrap = self._origin(error)
            if wrap is not None:
                return wrap["parameter_devices"], wrap["buffer_devices"], None
        if model is not None:
            inner = model_view.unwrapped(model)
            return (
                model_view.parameter_devices(inner),
                model_view.buffer_devices(inner),
                model_view.wrapper_info(model),
            )
        if self.wraps:
            last = self.wraps[-1]
            return last["parameter_devices"], last["buffer_devices"], None
        return [], [], None

    def _mmengine_device(self) -> str | None:
        for wrap in reversed(self.wraps):
            if wrap.get("mmengine_device") is not None:
                return str(wrap["mmengine_device"])
        return model_view.mmengine_device()

    def _dist_path(self, backend: str | None) -> str:
        if self.process_group_by == "init_dist":
            return "init_dist"
        if self.process_group_by is not None or backend is not None:
            return "entry-point"
        return "none"

    def result(
        self,
        script_end: str,
        *,
        model: Any = None,
        stopped_at: str | None = None,
        error: BaseException | None = None,
    ) -> dict[str, Any]:
        parameters, buffers, wrapper = self._placement(model, error)
        backend = model_view.process_group_backend()
        described = None
        if error is not None:
            phase, _wrap = self._origin(error)
            described = self.describe(error, phase)
        return {
            "schema": SCHEMA_VERSION,
            "rank": _env_int("RANK"),
            "local_rank": _env_int("LOCAL_RANK"),
            "world_size": _env_int("WORLD_SIZE"),
            "phase": "done" if error is None else self.phase,
            "dist_path": self._dist_path(backend),
            "mmengine_device": self._mmengine_device(),
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "process_group_backend": backend,
            "import_paths": self.import_paths,
            "built_parameter_devices": self.built_parameter_devices,
            "parameter_devices": parameters,
            "buffer_devices": buffers,
            "configured_device_ids": self.configured_device_ids,
            "wrapper": wrapper,
            "error": described,
            "unsupported": None,
            "script_end": script_end,
            "stopped_at": stopped_at,
            "wraps": self.wraps,
            "init_dist_calls": self.init_dist_calls,
            "loaded_configs": self.loaded_configs,
            "process_group_by": self.process_group_by,
            "process_group_line": self.process_group_line,
            "runner_launcher": self.runner_launcher,
        }

    def _end(
        self,
        script_end: str,
        *,
        model: Any = None,
        stopped_at: str | None = None,
        error: BaseException | None = None,
    ) -> NoReturn:
        code = 0
        try:
            data = self.result(script_end, model=model, stopped_at=stopped_at, error=error)
            write_json(Path(self.request.result_path), data)
        except BaseException:  # no result: the launcher reports the rank as lost, with this
            traceback.print_exc()
            code = 1
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        # Not sys.exit: nothing of the script (its `finally`, atexit, threads) runs after this.
        os._exit(code)
