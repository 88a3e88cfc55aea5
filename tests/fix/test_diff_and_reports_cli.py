"""`--diff` patches that git accepts, and the `fix` field of the JSON report."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli
from project_tree import snapshot, write_tree

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
NO_FINAL_NEWLINE = (
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    "env_cfg = dict(cudnn_benchmark=True)"
)


def test_diff_of_a_file_without_final_newline_marks_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": SETTINGS, "b.py": NO_FINAL_NEWLINE})
    result = run_cli("check", "--diff", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/b.py\n"
        "+++ b/b.py\n"
        "@@ -1,3 +1,3 @@\n"
        " model = dict(type='M')\n"
        " model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
        "-env_cfg = dict(cudnn_benchmark=True)\n"
        "\\ No newline at end of file\n"
        "+env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
        "\\ No newline at end of file\n"
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_applies_the_diff_and_gets_what_fix_writes(tmp_path: Path) -> None:
    applied = write_tree(
        tmp_path / "applied", {"pyproject.toml": SETTINGS, "b.py": NO_FINAL_NEWLINE}
    )
    fixed = write_tree(tmp_path / "fixed", {"pyproject.toml": SETTINGS, "b.py": NO_FINAL_NEWLINE})
    patch = tmp_path / "fix.patch"
    patch.write_text(run_cli("check", "--diff", cwd=applied).stdout)
    subprocess.run(["git", "init", "-q", "."], cwd=applied, check=True, timeout=300)
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=applied, check=True, timeout=300)
    subprocess.run(["git", "apply", str(patch)], cwd=applied, check=True, timeout=300)
    assert run_cli("fix", cwd=fixed).exit_code == 0
    assert (applied / "b.py").read_bytes() == (fixed / "b.py").read_bytes()


def test_diff_names_a_file_outside_the_working_folder_by_its_path(tmp_path: Path) -> None:
    project = write_tree(
        tmp_path / "project", {"pyproject.toml": SETTINGS, "b.py": NO_FINAL_NEWLINE}
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli("check", "--diff", project / "b.py", cwd=elsewhere)
    shown = (project / "b.py").as_posix()
    assert result.stdout.startswith(f"--- {shown}\n+++ {shown}\n@@ ")


TWO_FIXES_ONE_LEAF = {
    "pyproject.toml": (
        '[tool.cfglint]\ndefault-target = "cuda"\n\n[tool.cfglint.targets]\n"gcu/**" = "t20-gcu"\n'
    ),
    "_base_/rt.py": (
        "env_cfg = dict(cudnn_benchmark=True, dist_cfg=dict(backend='nccl'))\n"
        "model = dict(type='M')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    ),
    "cuda/c.py": "_base_ = '../_base_/rt.py'\n",
    "gcu/g.py": "_base_ = '../_base_/rt.py'\n",
}


def _apply(root: Path, edits: list[dict[str, object]]) -> None:
    """Apply JSON edits the way a report consumer would: last edit first, by row and column."""
    by_file: dict[str, list[dict[str, object]]] = {}
    for edit in edits:
        by_file.setdefault(str(edit["filename"]), []).append(edit)
    for name, file_edits in by_file.items():
        text = Path(name).read_text()
        starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]

        def offset(where: object, starts: list[int] = starts) -> int:
            assert isinstance(where, dict)
            return starts[where["row"] - 1] + where["column"] - 1

        for edit in sorted(file_edits, key=lambda e: offset(e["location"]), reverse=True):
            start, end = offset(edit["location"]), offset(edit["end_location"])
            text = text[:start] + str(edit["content"]) + text[end:]
        Path(name).write_text(text)


@pytest.mark.parametrize("which", [("CL301",), ("CL301", "CL101")])
def test_each_published_fix_is_correct_alone_and_together(
    tmp_path: Path, which: tuple[str, ...]
) -> None:
    """CL301 and CL101 both need an `env_cfg` override in the same leaf: the first publishes
    the one combined override, the other points at it, so that a consumer applying every edit
    of the report (none deduplicated) writes it once, and the first alone fixes both."""
    write_tree(tmp_path, TWO_FIXES_ONE_LEAF)
    report = run_cli("check", "--output-format", "json", cwd=tmp_path)
    records = {record["code"]: record for record in json.loads(report.stdout)}
    assert records["CL101"]["fix"]["edits"] == []
    assert records["CL101"]["fix"]["applied_with"] == {
        "code": "CL301",
        "filename": records["CL301"]["filename"],
        "location": records["CL301"]["location"],
    }
    edits: list[dict[str, object]] = []
    for code in which:
        edits.extend(records[code]["fix"]["edits"])
    before = snapshot(tmp_path)
    _apply(tmp_path, edits)
    assert [name for name, data in snapshot(tmp_path).items() if before[name] != data] == [
        "gcu/g.py"
    ]
    assert (tmp_path / "gcu/g.py").read_text() == (
        "_base_ = '../_base_/rt.py'\n\n"
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
    )
    clean = run_cli("check", cwd=tmp_path)
    assert (clean.exit_code, clean.stdout) == (0, "All checks passed!\n")
