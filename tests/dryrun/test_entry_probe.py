"""The probe's own parts, in this process: the post-import hook and the stack reading."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from cfglint.dryrun.probe import frames
from cfglint.dryrun.probe.post_import import PostImportFinder, install


@pytest.fixture
def package_dir(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("probe_target")]:
            del sys.modules[name]
        sys.meta_path[:] = [
            finder for finder in sys.meta_path if not isinstance(finder, PostImportFinder)
        ]


def test_the_function_runs_once_the_module_has_run_and_before_the_importer_gets_it(
    package_dir: Path,
) -> None:
    (package_dir / "probe_target_a.py").write_text("VALUE = 1\n")
    (package_dir / "probe_target_user.py").write_text(
        "from probe_target_a import VALUE\nSEEN = VALUE\n"
    )
    seen: list[int] = []

    def after(module: ModuleType) -> None:
        seen.append(module.VALUE)
        vars(module)["VALUE"] = 2  # what a patch does: the importer must get the patched name

    install({"probe_target_a": after})
    user = importlib.import_module("probe_target_user")
    assert seen == [1]
    assert user.SEEN == 2
    # Once loaded, the module and its spec have the real loader back.
    target = sys.modules["probe_target_a"]
    assert type(target.__loader__).__name__ == "SourceFileLoader"
    assert target.__spec__ is not None and target.__loader__ is target.__spec__.loader


def test_nothing_is_imported_by_the_hook_itself(package_dir: Path) -> None:
    (package_dir / "probe_target_b.py").write_text("VALUE = 1\n")
    install({"probe_target_b": lambda module: None})
    assert "probe_target_b" not in sys.modules


def test_a_module_already_imported_is_patched_at_once(package_dir: Path) -> None:
    (package_dir / "probe_target_c.py").write_text("VALUE = 1\n")
    module = importlib.import_module("probe_target_c")
    install({"probe_target_c": lambda loaded: setattr(loaded, "VALUE", 3)})
    assert module.VALUE == 3


def test_the_scripts_frame_is_found_from_inside_a_call(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("def main(probe):\n    return probe()\n")
    namespace: dict[str, object] = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    found = frames.Script(str(script))

    def probe() -> dict[str, object] | None:
        own = found.innermost_frame(sys._getframe(1))
        return None if own is None else frames.source_line(own)

    main = namespace["main"]
    assert callable(main)
    line = main(probe)
    assert line == {
        "file": str(script),
        "line": 2,
        "function": "main",
        "code": "return probe()",
    }


def test_the_constructor_caller_is_past_the_instances_own_init_frames() -> None:
    callers: list[str] = []

    class Base:
        def __init__(self) -> None:
            caller = frames.constructor_caller(sys._getframe(1), self)
            callers.append("" if caller is None else caller.f_code.co_name)

    class Sub(Base):
        def __init__(self) -> None:
            super().__init__()

    def build() -> None:
        Sub()

    build()
    assert callers == ["build"]
