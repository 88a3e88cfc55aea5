"""Each config's outcome (engine/outcome.py), kept while everything it was computed from reads
the same: the files its resolution read, the target files of its project, the metafiles of
`pkg::` bases, and the settings files on the way up from it (present or not).

A change to a base makes exactly the configs that read it miss; the others are taken from here.
An entry is one file per (config as named, options), written atomically; its first line holds
the format and the hash of the rest, so that a truncated, altered or foreign file is ignored
(and written anew). The body is a pickle read back by an unpickler that knows the outcome's
own types and nothing else: nothing in a cache file is ever run.

Whether a file still reads the same is decided as `inputs.unchanged` decides it: by its stamp
(size, mtime, inode, taken before it was read) when that is older than the run that read it by
more than the coarsest mtime granularity, else by its contents' hash. Each file is looked at
once per command, whichever configs read it, and told to the readers of `cfglint/files.py` (the
whole-command cache records it as read).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType

from cfglint import files
from cfglint.cache.index import IndexStore
from cfglint.cache.inputs import SETTINGS_NAMES
from cfglint.cache.key import interpreter_parts
from cfglint.cache.store import Store
from cfglint.engine.outcome import ConfigOutcome
from cfglint.loader.bases import SCOPE_PACKAGES
from cfglint.settings import settings_for

FORMAT = "cfglint-config/1"
FOLDER = "configs"

Stamp = files.Stamp
# A file as an outcome depends on it: its contents' hash (None: missing, unreadable), its stamp.
State = tuple[str | None, Stamp | None]

# What an entry's outcome may be made of: its own types (and paths).
_ALLOWED = frozenset(
    {
        ("cfglint.engine.outcome", "ConfigOutcome"),
        ("cfglint.engine.outcome", "Issue"),
        ("cfglint.types", "Applicability"),
        ("cfglint.types", "FixIntent"),
        ("cfglint.types", "KeyChange"),
        ("cfglint.types", "LeafOverride"),
        ("cfglint.types", "ResolvedKeys"),
        ("cfglint.types", "LoadProblem"),
        ("cfglint.types", "Span"),
        ("cfglint.types", "SpanChange"),
        ("cfglint.types", "TextEdit"),
        ("cfglint.types", "_Removal"),
        ("pathlib", type(Path()).__name__),
    }
)


class ConfigCache:
    """The outcomes of one command's checks (engine.outcome.OutcomeCache); a context manager
    around the command, which must be entered before the command reads any settings file.

    `options`: what besides the files changes an outcome (the target given on the command
    line, `--select`, `--ignore`), as JSON values.
    """

    def __init__(self, store: Store, options: Sequence[object]) -> None:
        self._store = store
        # What the inheritance index found in each file, kept in the same folder.
        self.references = IndexStore(store)
        self._folder = store.entries / FOLDER
        self._run = _run_key(options)
        self._paths: dict[str, Path] = {}  # each path string made a Path once
        # Each file as it reads in this check (a fix writes files between two checks).
        self._now: dict[str, tuple[str | None, Stamp | None]] = {}
        self._told: set[str] = set()
        # The first read of each settings file in this command (each is read once a process).
        self._settings_reads: dict[str, str | None] = {}
        self._settings_now: dict[str, tuple[State, bool]] = {}  # now, and as read then
        # While a check runs: the first read of each file, and the files read twice unalike.
        self._reads: dict[str, State] | None = None
        self._changed: set[str] = set()
        # Before any stamp an entry holds was taken (some are taken by an earlier check of the
        # same command: the metafiles of `pkg::` bases, read once a process).
        self._started_ns = time.time_ns()
        self._observing: contextlib.ExitStack | None = None

    def __enter__(self) -> ConfigCache:
        self._observing = contextlib.ExitStack()
        self._observing.enter_context(files.observed(self._observe))
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._observing is not None:
            self._observing.close()

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """While one check runs: the first read it makes of each file is what an outcome it
        computes depends on (a file read twice with different contents is not relied on)."""
        self._reads, self._changed = {}, set()
        self._now, self._told = {}, set()
        try:
            yield
        finally:
            self._reads = None

    def _observe(self, read: files.Read) -> None:
        path = os.path.abspath(read.path)
        if os.path.basename(path) in SETTINGS_NAMES:
            self._settings_reads.setdefault(path, read.digest)
        if self._reads is None or read.limit is not None:
            return
        first = self._reads.setdefault(path, (read.digest, read.stamp))
        if first[0] != read.digest:
            self._changed.add(path)

    # -- reading ----------------------------------------------------------------------------

    def lookup(self, path: Path, named: bool) -> ConfigOutcome | None:
        name = self._entry_name(path, named)
        try:
            with open(self._folder / name, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        entry = self._loads(data, name)
        if entry is None:
            return None
        recorded_ns, inputs, outcome = entry
        for file, state in inputs:
            if not self._unchanged(file, state, recorded_ns):
                return None
        return outcome

    def _unchanged(self, path: str, state: State, recorded_ns: int) -> bool:
        """Whether the file reads as `state` now (its stamp may stand in for it)."""
        digest, stamp = state
        known, now = self._now.get(path) or self._stat(path)
        if known is None and files.stamp_stands_in(stamp, now, recorded_ns):
            if path not in self._told:
                self._told.add(path)
                files.tell(files.Read(self._path(path), digest, None, now))
            return True
        if known is None:
            try:
                known = files.digest(files.read_bytes_capped(self._path(path)))
            except OSError:
                known = ""  # read, and missing or unreadable: no recorded digest is ""
            self._now[path] = (known, now)
            self._told.add(path)
        return (known or None) == digest

    def _stat(self, path: str) -> tuple[str | None, Stamp | None]:
        try:
            stamp: Stamp | None = files.stamp_of(os.stat(path))
        except OSError:
            stamp = None
        self._now[path] = (None, stamp)
        return None, stamp

    def _loads(
        self, data: bytes, name: str
    ) -> tuple[int, list[tuple[str, State]], ConfigOutcome] | None:
        header, _, body = data.partition(b"\n")
        if header != f"{FORMAT} {hashlib.sha256(body).hexdigest()}".encode():
            return None
        try:
            stored, recorded_ns, paths, inputs, payload = _Unpickler(io.BytesIO(body)).load()
            if stored != name:
                return None
            unpickler = _Unpickler(io.BytesIO(payload))
            unpickler.persistent_load = lambda index: self._path(paths[index])  # type: ignore[method-assign]
            outcome = unpickler.load()
            if not isinstance(outcome, ConfigOutcome) or not isinstance(recorded_ns, int):
                return None
            states = [(str(paths[index]), (digest, stamp)) for index, digest, stamp in inputs]
        except Exception:  # not what this module writes: ignored
            return None
        return recorded_ns, states, outcome

    # -- writing ----------------------------------------------------------------------------

    def store(self, outcome: ConfigOutcome, named: bool, depends: Sequence[files.Read]) -> None:
        """Keep an outcome computed in this check (best effort, as every cache write)."""
        if (
            self._reads is None
            or not outcome.resolved
            or outcome.load_internal is not None
            or outcome.check_internal is not None
            or outcome.target_error is not None  # its message lists every known target
        ):
            return
        states: dict[str, State] = {}
        for file in outcome.files:
            path = os.path.abspath(file)
            if path in self._changed or path not in self._reads:
                return  # not read once, as it is now, in this check
            states[path] = self._reads[path]
        for read in depends:
            states.setdefault(os.path.abspath(read.path), (read.digest, read.stamp))
        settings = self._settings_states(outcome.path)
        if settings is None:
            return
        states.update(settings)
        name = self._entry_name(outcome.path, named)
        self._store.write_file(f"{FOLDER}/{name}", _dumps(name, self._started_ns, states, outcome))

    def _settings_states(self, config: Path) -> dict[str, State] | None:
        """The settings files that decide the config's settings: in each folder from its own up
        to the one its settings come from, both names (one created there would count). None
        when one does not read as this command read it (it changed meanwhile)."""
        settings = settings_for(config)
        folder = Path(os.path.abspath(config)).parent
        top = settings.root if settings.source is not None else Path(folder.anchor)
        states: dict[str, State] = {}
        for current in (folder, *folder.parents):
            for name in SETTINGS_NAMES:
                path = current / name
                if current == top and settings.source == top / "cfglint.toml" != path:
                    continue  # beside the cfglint.toml in use, a pyproject.toml is never read
                found = self._settings_now.get(str(path))
                if found is None:
                    # As the settings read it (None: not there when they looked), then now.
                    then = self._settings_reads.get(str(path))
                    state = _state(path)
                    found = self._settings_now[str(path)] = (state, then == state[0])
                state, unchanged = found
                if not unchanged:
                    return None
                states[str(path)] = state
            if current == top:
                break
        return states

    def _entry_name(self, path: Path, named: bool) -> str:
        return hashlib.sha256(f"{self._run}\0{path}\0{named}".encode()).hexdigest()

    def _path(self, text: str) -> Path:
        found = self._paths.get(text)
        if found is None:
            found = self._paths[text] = Path(text)
        return found


def _state(path: Path) -> State:
    """A settings file as it is now: its digest (None: there is none) and stamp."""
    try:
        status = os.stat(path)
        data = files.read_bytes_capped(path)
    except OSError:
        return None, None
    return files.digest(data), files.stamp_of(status)


def _run_key(options: Sequence[object]) -> str:
    """What every entry of a run shares: cfglint and Python, where it runs (paths are printed
    relative to it), the options, and where `pkg::` bases are found (the import path, and the
    packages and their metadata installed there)."""
    import json

    packages = tuple({*SCOPE_PACKAGES, *SCOPE_PACKAGES.values()})
    installed = {}
    for entry in sys.path:
        with contextlib.suppress(OSError):
            names = os.listdir(entry or ".")
            installed[entry] = sorted(n for n in names if any(p in n.lower() for p in packages))
    parts = {
        **interpreter_parts(),
        "format": FORMAT,
        "installed": installed,
        "options": list(options),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> object:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")
        return super().find_class(module, name)


def _dumps(name: str, recorded_ns: int, states: dict[str, State], outcome: ConfigOutcome) -> bytes:
    """The entry: the paths once each (the outcome refers to them by index), then the inputs
    and the outcome."""
    paths = list(states)
    ids = {path: index for index, path in enumerate(paths)}

    def persistent_id(item: object) -> int | None:
        if not isinstance(item, Path):
            return None
        text = str(item)
        found = ids.get(text)
        if found is None:
            found = ids[text] = len(paths)
            paths.append(text)
        return found

    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.persistent_id = persistent_id  # type: ignore[method-assign]
    pickler.dump(outcome)
    inputs = [(index, *states[path]) for index, path in enumerate(states)]
    body = pickle.dumps(
        (name, recorded_ns, paths, inputs, buffer.getvalue()), protocol=pickle.HIGHEST_PROTOCOL
    )
    return f"{FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body
