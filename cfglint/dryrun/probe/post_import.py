"""Run a function right after a module's own code has run, without importing anything early.

A meta-path finder first in `sys.meta_path` answers only for the watched names: it asks the
finders after it for the real spec and wraps the spec's loader, so the function runs when the
module has executed and before whoever imported it gets it back. A name imported nowhere is
never loaded by the probe.
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

AfterImport = Callable[[ModuleType], None]


class _ThenRun(importlib.abc.Loader):
    """The real loader, then `after`; once the module ran, the module and its spec get the real
    loader back, so nothing after the import sees this one."""

    def __init__(self, loader: importlib.abc.Loader, after: AfterImport) -> None:
        self._loader = loader
        self._after = after

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        try:
            self._loader.exec_module(module)
        finally:
            module.__loader__ = self._loader
            if module.__spec__ is not None:
                module.__spec__.loader = self._loader
        self._after(module)

    def __getattr__(self, name: str) -> Any:
        # get_source, get_filename, is_package, get_resource_reader ...: the real loader's.
        return getattr(self._loader, name)


class PostImportFinder(importlib.abc.MetaPathFinder):
    def __init__(self, watched: Mapping[str, AfterImport]) -> None:
        self._pending = dict(watched)
        self._lock = threading.Lock()

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        with self._lock:
            after = self._pending.pop(fullname, None)
        if after is None:
            return None
        spec = self._real_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ThenRun(spec.loader, after)
        return spec

    def _real_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None
    ) -> ModuleSpec | None:
        finders = list(sys.meta_path)
        later = finders[finders.index(self) + 1 :] if self in finders else finders
        for finder in later:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec: ModuleSpec | None = find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return None


def install(watched: Mapping[str, AfterImport]) -> PostImportFinder:
    """Watch these modules; one already imported gets its function now."""
    waiting = {}
    for name, after in watched.items():
        module = sys.modules.get(name)
        if module is not None:
            after(module)
        else:
            waiting[name] = after
    finder = PostImportFinder(waiting)
    sys.meta_path.insert(0, finder)
    return finder
