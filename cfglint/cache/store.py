"""Where the cache lives, and reading and writing its entries: atomically (two runs at once
each write whole files; the last one stays), and never trusting a file that does not
validate."""

from __future__ import annotations

import os
from pathlib import Path

from cfglint import __version__
from cfglint.cache import entry as entries
from cfglint.cache.entry import Entry

CACHE_FOLDER = ".cfglint_cache"
ENVIRONMENT_VARIABLE = "CFGLINT_CACHE_DIR"
_PROJECT_FILES = ("pyproject.toml", "cfglint.toml")
_GITIGNORE = "# Automatically created by cfglint.\n*\n"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by cfglint.\n"
)


def cache_dir(option: Path | None, cwd: Path) -> Path:
    """`--cache-dir`, else `CFGLINT_CACHE_DIR`, else `.cfglint_cache` in the project root: the
    nearest folder from `cwd` upwards holding a pyproject.toml or cfglint.toml, else `cwd`."""
    if option is not None:
        return Path(os.path.abspath(option))
    configured = os.environ.get(ENVIRONMENT_VARIABLE)
    if configured:
        return Path(os.path.abspath(configured))
    return project_root(cwd) / CACHE_FOLDER


def project_root(cwd: Path) -> Path:
    absolute = Path(os.path.abspath(cwd))
    for folder in (absolute, *absolute.parents):
        if any(os.path.isfile(folder / name) for name in _PROJECT_FILES):
            return folder
    return absolute


class Store:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # One folder per version: another version's entries are never even opened.
        self.entries = folder / __version__

    def read(self, key: str) -> Entry | None:
        try:
            with open(self.entries / key, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        return entries.loads(data, key)

    def write(self, entry: Entry) -> OSError | None:
        """Best effort: a cache that cannot be written only makes the next run slower. The
        error, when it could not be written."""
        return self.write_file(entry.key, entries.dumps(entry))

    def write_file(self, name: str, data: bytes) -> OSError | None:
        """`name` (relative to this version's folder) holds `data`, written whole or not at all
        (best effort, as `write`)."""
        import tempfile  # only when writing: a replayed run never needs it (nor its imports)

        target = self.entries / name
        try:
            self.prepare()
            target.parent.mkdir(exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, target)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError as error:
            return error
        return None

    def prepare(self) -> None:
        """The folder with its .gitignore (its contents are never committed) and CACHEDIR.TAG
        (backup tools skip it)."""
        if self.entries.is_dir():
            return
        self.entries.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            target = self.folder / name
            if not target.exists():
                _write_atomically(target, text)


def _write_atomically(target: Path, text: str) -> None:
    import tempfile

    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.replace(temporary, target)
