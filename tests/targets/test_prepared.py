"""The shipped targets' parsed copy (schemas/prepared.json): current, used, and never trusted
for a file whose text changed since it was written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cfglint.targets import registry
from cfglint.targets.load import parse_fast
from cfglint.targets.prepare import prepared_text
from cfglint.targets.prepared import FILE_NAME, PreparedTargets
from cfglint.targets.registry import TargetRegistry, shipped_targets_dir


def test_the_committed_copy_is_current() -> None:
    folder = shipped_targets_dir()
    assert (folder / FILE_NAME).read_text(encoding="utf-8") == prepared_text(folder), (
        "a shipped target file changed: run `python -m cfglint.targets.prepare`"
    )


def test_the_copy_keeps_the_order_of_each_file() -> None:
    """Key order is meaning here (a target's keys are checked and documented in file order),
    and dict equality would not see it."""
    folder = shipped_targets_dir()
    stored = json.loads((folder / FILE_NAME).read_text(encoding="utf-8"))["files"]
    for path in sorted(folder.glob("*.yaml")):
        parsed = parse_fast(path, path.read_text(encoding="utf-8"))
        assert json.dumps(stored[path.name]["data"]) == json.dumps(parsed), path.name


@pytest.fixture
def shipped_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "schemas"
    shutil.copytree(shipped_targets_dir(), folder)
    monkeypatch.setattr(registry, "shipped_targets_dir", lambda: folder)
    return folder


def test_the_copy_is_what_a_registry_reads(shipped_copy: Path) -> None:
    """Data changed in the copy alone shows: the YAML file was not parsed."""
    prepared = json.loads((shipped_copy / FILE_NAME).read_text(encoding="utf-8"))
    prepared["files"]["cuda.yaml"]["data"]["description"] = "from the prepared copy"
    (shipped_copy / FILE_NAME).write_text(json.dumps(prepared), encoding="utf-8")
    assert TargetRegistry().get("cuda").description == "from the prepared copy"


def test_a_file_edited_since_is_parsed_again(shipped_copy: Path) -> None:
    cuda = shipped_copy / "cuda.yaml"
    text = cuda.read_text(encoding="utf-8")
    old = TargetRegistry().get("cuda").description
    cuda.write_text(text.replace(old, "edited in place"), encoding="utf-8")
    assert TargetRegistry().get("cuda").description == "edited in place"


def test_a_file_added_since_is_read(shipped_copy: Path) -> None:
    text = (shipped_copy / "cuda.yaml").read_text(encoding="utf-8")
    (shipped_copy / "cuda-copy.yaml").write_text(
        text.replace("name: cuda", "name: cuda-copy", 1), encoding="utf-8"
    )
    assert "cuda-copy" in TargetRegistry().names()
    assert TargetRegistry().get("cuda-copy").device == "cuda"


def test_an_entry_whose_data_is_no_mapping_is_not_used(shipped_copy: Path) -> None:
    prepared = json.loads((shipped_copy / FILE_NAME).read_text(encoding="utf-8"))
    prepared["files"]["cuda.yaml"]["data"] = ["not", "a", "target"]
    (shipped_copy / FILE_NAME).write_text(json.dumps(prepared), encoding="utf-8")
    assert TargetRegistry().get("cuda").device == "cuda"  # parsed from its YAML


@pytest.mark.parametrize("content", ["", "{not json", '{"format": 99, "files": {}}', "[1, 2]"])
def test_a_broken_or_foreign_copy_is_ignored(shipped_copy: Path, content: str) -> None:
    (shipped_copy / FILE_NAME).write_text(content, encoding="utf-8")
    assert PreparedTargets.read(shipped_copy).data_for(shipped_copy / "cuda.yaml", "") is None
    expected = {path.stem for path in shipped_copy.glob("*.yaml")}
    assert set(TargetRegistry().names()) == expected
    assert TargetRegistry().get("t20-gcu").device == "gcu"
