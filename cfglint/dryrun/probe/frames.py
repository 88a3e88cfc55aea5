"""Reading the stack inside a hook: the entry script's own line, the caller, an error's frames."""

from __future__ import annotations

import functools
import linecache
import os
import runpy
import traceback
from types import FrameType
from typing import Any

_PROBE_DIR = os.path.dirname(os.path.abspath(__file__))
# Frames of the probe and of runpy are how the script was run, not part of what it did.
_NOT_SHOWN = (_PROBE_DIR + os.sep, os.path.abspath(runpy.__file__), "<frozen runpy>")


@functools.lru_cache(maxsize=4096)
def _real(filename: str) -> str:
    return os.path.realpath(filename)


def _shown(filename: str) -> bool:
    return not (filename.startswith(_NOT_SHOWN) or os.path.abspath(filename).startswith(_NOT_SHOWN))


class Script:
    """The entry script, to tell its frames from everyone else's."""

    def __init__(self, path: str) -> None:
        self.real = _real(path)

    def owns(self, frame: FrameType) -> bool:
        return _real(frame.f_code.co_filename) == self.real

    def innermost_frame(self, frame: FrameType | None) -> FrameType | None:
        """The script's own frame nearest to `frame`, walking outwards."""
        while frame is not None:
            if self.owns(frame):
                return frame
            frame = frame.f_back
        return None


def source_line(frame: FrameType) -> dict[str, Any]:
    code = frame.f_code
    text = linecache.getline(code.co_filename, frame.f_lineno, frame.f_globals).strip()
    return {
        "file": code.co_filename,
        "line": frame.f_lineno,
        "function": code.co_name,
        "code": text,
    }


def outside(frame: FrameType | None) -> FrameType | None:
    """The first frame, from `frame` outwards, that is not the probe's own."""
    while frame is not None and not _shown(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def constructor_caller(frame: FrameType | None, instance: object) -> FrameType | None:
    """Who called the constructor: past the `__init__` frames of `instance` itself (a subclass's
    `__init__` calling `super().__init__`) and the probe's own."""
    frame = outside(frame)
    while frame is not None and (
        frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is instance
    ):
        frame = outside(frame.f_back)
    return frame


def error_frames(error: BaseException) -> list[dict[str, Any]]:
    return [
        {"file": entry.filename, "line": entry.lineno or 0, "function": entry.name}
        for entry in traceback.extract_tb(error.__traceback__)
        if _shown(entry.filename)
    ]
