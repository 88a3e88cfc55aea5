"""What every test shares: the system's temporary folder, as the code under test sees it, is a
folder of pytest's own, removed with pytest's other temporary folders; cfglint's modules are
byte-compiled once, before the commands tests run as processes import them; and the slowest
tests run first.

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

# The modules whose tests start the slowest processes (dry-run ranks importing torch and
# MMEngine, real pre-commit building its hook environment, commands under memory limits),
# slowest first. pytest-xdist hands out whole modules in collection order (`--dist loadscope
# --no-loadscope-reorder` in pyproject.toml), so a module-scoped fixture is built once, and
# with these collected first the last modules left to share between the workers are short.
SLOW_FIRST = (
    "dryrun/test_dryrun_cli.py",
    "dryrun/test_entry_cli.py",
    "integrations/test_precommit.py",
    "cache/test_cache_cli.py",
    "hostile/test_cases.py",
    "check/test_workers.py",
    "rules/test_rule_errors_real.py",
    "launch/test_shell_hostile.py",
    "loader/test_hostile_input.py",
    "launch/test_entry_oracle_mechanics.py",
    "review/test_review_bot.py",
    "targets/test_target_as_data.py",
)
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = [module for module in SLOW_FIRST if not (_TESTS / module).is_file()]
    if missing:  # a module renamed or removed: keep the list true
        raise pytest.UsageError(f"tests/conftest.py SLOW_FIRST names no such module: {missing}")
    places = {_TESTS / module: place for place, module in enumerate(SLOW_FIRST)}

    def place(item: pytest.Item) -> int:
        return places.get(item.path.resolve(), len(SLOW_FIRST))

    items.sort(key=place)  # stable: each module keeps its own order


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
