"""What the inheritance index (engine/inheritors.py) found in each file of a project, kept
between runs: a pre-commit run naming one file then reads only the files changed since,
instead of every file of the project.

One file per project root, written atomically, behind a line holding the format and the hash
of the rest; read back by an unpickler that makes nothing but plain values (a file that is
anything else is ignored, and written anew by the next run).
"""

from __future__ import annotations

import hashlib
import io
import pickle
from pathlib import Path

from cfglint.cache.store import Store
from cfglint.engine.inheritors import KnownReferences

FORMAT = "cfglint-index/1"
FOLDER = "index"


class IndexStore:
    """engine.inheritors.ReferenceStore in the result cache's folder."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def load(self, root: Path) -> KnownReferences | None:
        try:
            with open(self._store.entries / FOLDER / _name(root), "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        header, _, body = data.partition(b"\n")
        if header != f"{FORMAT} {hashlib.sha256(body).hexdigest()}".encode():
            return None
        try:
            stored_root, recorded_ns, found = _PlainUnpickler(io.BytesIO(body)).load()
        except Exception:  # not what this module writes: ignored
            return None
        if stored_root != str(root) or not isinstance(recorded_ns, int) or not _valid(found):
            return None
        return KnownReferences(recorded_ns, found)

    def save(self, root: Path, known: KnownReferences) -> None:
        body = pickle.dumps(
            (str(root), known.recorded_ns, known.files), protocol=pickle.HIGHEST_PROTOCOL
        )
        data = f"{FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body
        self._store.write_file(f"{FOLDER}/{_name(root)}", data)


def _valid(found: object) -> bool:
    """Whether `found` is what KnownReferences holds: path -> (stamp, digest, references)."""
    if not isinstance(found, dict):
        return False
    for path, value in found.items():
        if not (isinstance(path, str) and isinstance(value, tuple) and len(value) == 3):
            return False
        stamp, digest, references = value
        if stamp is not None and not (
            isinstance(stamp, tuple) and len(stamp) == 3 and all(type(n) is int for n in stamp)
        ):
            return False
        if not isinstance(digest, str) or not isinstance(references, tuple):
            return False
        if not all(isinstance(reference, str) for reference in references):
            return False
    return True


def _name(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> object:
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in an index file")
