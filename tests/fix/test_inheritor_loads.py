"""Fix placement resolves only the configs that can inherit the file a fix edits: a project's
other configs are never loaded (a 2,000-config project must not be resolved for one leaf)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_tree import changed_files, snapshot, write_tree

from cfglint.cli import main
from cfglint.loader import Loader
from cfglint.types import LoadResult

RUNTIME = "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"


def _project(root: Path) -> Path:
    files = {
        "pyproject.toml": "[tool.cfglint]\ndefault-target = 't20-gcu'\n",
        "configs/_base_/rt_a.py": RUNTIME,
        "configs/_base_/rt_b.py": RUNTIME,
    }
    for group in ("a", "b"):
        for number in range(4):
            files[f"configs/{group}/{group}{number}.py"] = (
                f"_base_ = '../_base_/rt_{group}.py'\nmodel = dict(type='M')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
            )
    return write_tree(root, files)


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every config path `Loader.load` is asked for during the test."""
    paths: list[Path] = []
    original = Loader.load

    def load(self: Loader, path: Path) -> LoadResult:
        paths.append(Path(path).resolve())
        return original(self, path)

    monkeypatch.setattr(Loader, "load", load)
    return paths


@pytest.mark.parametrize(
    "argv",
    [["fix"], ["check", "--output-format", "json"], ["fix", "--fix-placement", "origin"]],
)
def test_configs_that_cannot_inherit_the_edited_base_are_never_loaded(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    loaded: list[Path],
    argv: list[str],
) -> None:
    root = _project(tmp_path).resolve()
    monkeypatch.chdir(root)
    before = snapshot(root)
    code = main([*argv, "configs/a/a0.py"])
    output = capsys.readouterr()
    assert "Traceback" not in output.err
    others = sorted({path.relative_to(root).as_posix() for path in loaded} - {"configs/a/a0.py"})
    # The named leaf's base is where the value is written: only its inheritors are asked about.
    assert others == ["configs/a/a1.py", "configs/a/a2.py", "configs/a/a3.py"]
    if argv[0] == "fix":
        assert (code, output.out) == (0, "Fixed 1 error.\nAll checks passed!\n")
        assert changed_files(before, snapshot(root)) == ["configs/_base_/rt_a.py"]
    else:
        assert code == 1
        assert '"content": "\'gloo\'"' in output.out


def test_an_override_in_each_leaf_is_placed_without_resolving_the_leaves_again(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    loaded: list[Path],
) -> None:
    """Each config's own check works out the override that carries a fix in the config itself
    (engine/leaf_override.py): placing the fixes of a report then loads no leaf a second time
    (over a large project, that second resolution doubled a JSON or SARIF report's time)."""
    root = _project(tmp_path).resolve()
    monkeypatch.chdir(root)
    code = main(["check", "--output-format", "json", "--fix-placement", "leaf", "configs"])
    output = capsys.readouterr()
    assert code == 1 and "Traceback" not in output.err
    leaves = [f"configs/{group}/{group}{number}.py" for group in "ab" for number in range(4)]
    asked = [path.relative_to(root).as_posix() for path in loaded]
    assert sorted(path for path in asked if path in leaves) == leaves  # each once: its check
    report = json.loads(output.out)
    edited = {
        Path(edit["filename"]).relative_to(root).as_posix()
        for finding in report
        if finding["fix"] is not None
        for edit in finding["fix"]["edits"]
    }
    assert edited == set(leaves)  # every leaf carries its override
