"""What every test shares: the system's temporary folder, as the code under test sees it, is a
folder of pytest's own, removed with pytest's other temporary folders; and cfglint's modules are
byte-compiled once, before the commands tests run as processes import them.

cfglint writes an internal error's traceback to a log in the system's temporary folder
(cfglint/crash_log.py), and the dry run makes its rank folders there; the tests that provoke
these would otherwise leave files in /tmp on every run.
"""

from __future__ import annotations

import compileall
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import cfglint


@pytest.fixture(autouse=True, scope="session")
def _system_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    folder = tmp_path_factory.mktemp("system-tmp")
    patch = pytest.MonkeyPatch()
    patch.setenv("TMPDIR", str(folder))  # for the commands tests run as processes
    patch.setattr(tempfile, "tempdir", None)  # this process's gettempdir() reads TMPDIR again
    try:
        yield
    finally:
        patch.undo()


@pytest.fixture(autouse=True, scope="session")
def _cfglint_byte_compiled() -> None:
    """Write cfglint's `__pycache__` (ignored by git) where it is missing or stale.

    Where PYTHONDONTWRITEBYTECODE is set (as on the team's machines), no process writes it, so
    each of the hundreds of `python -m cfglint` and dry-run processes the suite starts compiled
    the ~300 modules it imports again: about 0.2 s of CPU of a 0.45 s check of the examples.
    Python checks each file's cache against the source as usual, so an edit is never missed.
    """
    compileall.compile_dir(Path(cfglint.__file__).parent, quiet=1)
