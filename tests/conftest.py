"""What every test shares: the system's temporary folder, as the code under test sees it, is a
folder of pytest's own, removed with pytest's other temporary folders.

cfglint writes an internal error's traceback to a log in the system's temporary folder
(cfglint/crash_log.py), and the dry run makes its rank folders there; the tests that provoke
these would otherwise leave files in /tmp on every run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest


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
