"""A command's run through the result cache: its output replayed when every input it read is
unchanged, else the run itself, recorded and stored."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO, cast

from cfglint import crash_log, files
from cfglint.cache.entry import Entry
from cfglint.cache.inputs import Recorder, snapshot, unchanged
from cfglint.cache.key import run_key
from cfglint.cache.store import Store, project_root
from cfglint.cache.store import cache_dir as cache_folder


def run_cached(
    command: str,
    options: Mapping[str, object],
    named: Sequence[Path],
    run: Callable[[], int],
    *,
    enabled: bool,
    cache_dir: Path | None,
) -> int:
    """`options`: the parsed arguments that can change the output; `named`: the paths on the
    command line (folders are walked: a config added under them is a change)."""
    if not enabled:
        return run()
    cwd = Path.cwd()
    store = Store(cache_folder(cache_dir, cwd))
    key = run_key(command, _plain(options))
    stored = store.read(key)
    if stored is not None and unchanged(stored.inputs, store.folder):
        sys.stdout.write(stored.stdout)
        sys.stderr.write(stored.stderr)
        return stored.exit_code
    recorder = Recorder()
    crashes = crash_log.reported()
    out, err = RecordingStream(sys.stdout), RecordingStream(sys.stderr)
    sys.stdout, sys.stderr = cast(TextIO, out), cast(TextIO, err)
    try:
        with files.observed(recorder):
            exit_code = run()
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
    # A user error (a bad option, an unknown target) ends the run with an exception: not cached.
    # A fix that wrote files read them again, changed: its output describes no single state.
    if crash_log.reported() == crashes and not recorder.changed:
        # Each file's stamp was taken before it was read: a file saved since the run read it
        # no longer matches its stamp, and is read again before a replay.
        inputs = snapshot(recorder, named, project_root(cwd), store.folder)
        failed = store.write(Entry(key, inputs, out.text(), err.text(), exit_code))
        if failed is not None:
            # Not an error (the result stands), but every run would check everything again.
            reason = failed.strerror or str(failed)
            sys.stderr.write(
                f"cfglint: warning: cannot write the cache in {store.folder}: {reason} "
                "(every run checks again)\n"
            )
    return exit_code


def _plain(options: Mapping[str, object]) -> list[object]:
    """The options as JSON values, in a stable order."""
    return [[name, _json_value(options[name])] for name in sorted(options)]


def _json_value(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    if isinstance(value, Path):
        return os.fspath(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


class RecordingStream:
    """Writes through to `stream` and keeps what was written. `unrecorded` is the stream
    itself, for a progress bar: it is drawn, but never replayed."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.unrecorded = stream
        self._parts: list[str] = []

    def write(self, text: str) -> int:
        self._parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return self.stream.encoding

    def text(self) -> str:
        return "".join(self._parts)
