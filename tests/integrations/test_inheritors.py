"""A file named on the command line (what pre-commit passes) brings in every config that
inherits it, through the real command line: broken bases, several named files, leaf-to-leaf
chains, shared fragments, and where "the project" ends."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli
from project_tree import write_tree

BASE = "configs/_base_/default_runtime.py"
MODEL_BASE = "configs/_base_/models/toy_backbone.py"
CUDA_LEAF = "configs/cuda/train_toy_cuda_8card.py"
T20_LEAVES = [
    "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py",
    "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py",
]
SMOKE = "configs/gcu_smoke/toy_gcu_smoke.py"
ALL_LEAVES = sorted([CUDA_LEAF, *T20_LEAVES, SMOKE])
CUDA_TARGET = "[tool.cfglint]\ndefault-target = 'cuda'\n"
# A DDP wrapper with device ids: CL201 on t20-gcu, where the parameters stay on the CPU.
WRAPPER = "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n"


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _records(
    root: Path, *args: str, cwd: Path | None = None
) -> tuple[int, list[dict[str, object]]]:
    result = run_cli("check", "--output-format", "json", *args, cwd=cwd or root)
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, json.loads(result.stdout)


def _configs(records: list[dict[str, object]], code: str) -> object:
    """The configs of the one record with this code."""
    [record] = [record for record in records if record["code"] == code]
    return record["configs"]


def _relative(root: Path, paths: object) -> list[str]:
    assert isinstance(paths, list)
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


def test_a_base_broken_by_a_syntax_error_fails_every_config_inheriting_it(
    examples: Path,
) -> None:
    with (examples / MODEL_BASE).open("a", encoding="utf-8") as base:
        base.write("oops = (\n")
    result = run_cli("check", MODEL_BASE, cwd=examples)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert f"{MODEL_BASE}:21:8: CL901 syntax error: '(' was never closed" in result.stdout
    assert "= applies to 4 configs: " in result.stdout
    assert "All checks passed!" not in result.stdout


def test_a_base_pointing_at_a_missing_file_fails(examples: Path) -> None:
    with (examples / MODEL_BASE).open("a", encoding="utf-8") as base:
        base.write("_base_ = ['./missing.py']\n")
    exit_code, records = _records(examples, MODEL_BASE)
    assert exit_code == 2
    [record] = records
    assert record["code"] == "CL903"
    assert "`_base_` file not found: ./missing.py" in str(record["message"])
    assert _relative(examples, record["configs"]) == ALL_LEAVES


def test_a_broken_base_nothing_inherits_is_still_reported(examples: Path) -> None:
    orphan = examples / "configs/_base_/orphan.py"
    write_tree(examples, {"configs/_base_/orphan.py": "x = (\n"})
    exit_code, records = _records(examples, str(orphan))
    assert exit_code == 2
    assert [(record["code"], record["filename"]) for record in records] == [("CL901", str(orphan))]


def test_a_base_named_with_one_of_its_leaves_still_checks_the_others(examples: Path) -> None:
    alone = run_cli("check", BASE, cwd=examples)
    together = run_cli("check", BASE, CUDA_LEAF, cwd=examples)
    assert alone.exit_code == together.exit_code == 1
    assert "Found 9 errors on target t20-gcu." in alone.stdout
    assert together.stdout == alone.stdout


def test_two_bases_bring_in_the_inheritors_of_each(examples: Path) -> None:
    # Only the dinov3 configs inherit this new base; every config inherits the model base.
    write_tree(examples, {"configs/_base_/schedule.py": "train_cfg = dict(max_iters=10)\n"})
    leaf = examples / T20_LEAVES[1]
    leaf.write_text(
        leaf.read_text(encoding="utf-8").replace(
            "_base_ = [", "_base_ = [\n    '../_base_/schedule.py',", 1
        ),
        encoding="utf-8",
    )
    both = run_cli("check", "configs/_base_/schedule.py", MODEL_BASE, cwd=examples)
    assert both.stdout == run_cli("check", "configs", cwd=examples).stdout


def test_a_leaf_inherited_by_another_leaf_brings_it_in(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "project",
        {
            "pyproject.toml": "[tool.cfglint]\ndefault-target = 't20-gcu'\n",
            "configs/retinanet/retinanet_r50_1x.py": "model = dict(type='RetinaNet')\n"
            "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
            "configs/retinanet/retinanet_r50_2x.py": "_base_ = './retinanet_r50_1x.py'\n" + WRAPPER,
            "configs/retinanet/retinanet_r50_2x_ms.py": "_base_ = './retinanet_r50_2x.py'\n",
            "configs/yolo/yolo.py": "model = dict(type='YOLO')\n" + WRAPPER,
        },
    )
    exit_code, records = _records(root, "configs/retinanet/retinanet_r50_1x.py")
    assert exit_code == 1
    # The named config itself has no wrapper; the one inheriting it sets device ids.
    by_file = {Path(str(record["filename"])).name: record for record in records}
    assert sorted(by_file) == ["retinanet_r50_1x.py", "retinanet_r50_2x.py"]
    record = by_file["retinanet_r50_2x.py"]
    assert record["code"] == "CL201"
    assert _relative(root, record["configs"]) == [
        "configs/retinanet/retinanet_r50_2x.py",
        "configs/retinanet/retinanet_r50_2x_ms.py",
    ]
    assert "yolo" not in json.dumps(records)


def test_a_shared_fragment_outside_base_folders_brings_in_its_users(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "project",
        {
            "pyproject.toml": "[tool.cfglint]\ndefault-target = 't20-gcu'\n",
            # No `model`: never checked by itself, only through the configs using it.
            "configs/common/ddp.py": WRAPPER,
            "configs/a/model_a.py": "_base_ = ['../common/ddp.py']\nmodel = dict(type='A')\n",
            "configs/b/model_b.py": "_base_ = '../common/ddp.py'\nmodel = dict(type='B')\n",
        },
    )
    exit_code, records = _records(root, "configs/common/ddp.py")
    assert exit_code == 1
    assert _relative(root, _configs(records, "CL201")) == [
        "configs/a/model_a.py",
        "configs/b/model_b.py",
    ]


def _git_init(root: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=300)


def test_without_settings_the_project_is_the_git_work_tree(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repository",
        {
            "shared/ddp.py": WRAPPER,
            "projects/x/configs/x.py": "# cfglint: target=t20-gcu\n"
            "_base_ = '../../../shared/ddp.py'\nmodel = dict(type='X')\n",
        },
    )
    _git_init(root)
    exit_code, records = _records(root, "ddp.py", cwd=root / "shared")
    assert exit_code == 1
    assert _relative(root, _configs(records, "CL201")) == ["projects/x/configs/x.py"]


def test_without_settings_or_git_the_project_is_the_named_files_folder(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "loose",
        {
            "shared/ddp.py": WRAPPER,
            "shared/y.py": "# cfglint: target=t20-gcu\n_base_ = './ddp.py'\nmodel = dict()\n",
            "elsewhere/x.py": "# cfglint: target=t20-gcu\n"
            "_base_ = '../shared/ddp.py'\nmodel = dict(type='X')\n",
        },
    )
    exit_code, records = _records(root, "shared/ddp.py")
    assert exit_code == 1
    assert _relative(root, _configs(records, "CL201")) == ["shared/y.py"]


def test_excluded_and_hidden_configs_are_not_brought_in(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "project",
        {
            "pyproject.toml": "[tool.cfglint]\ndefault-target = 't20-gcu'\n"
            "exclude = ['configs/legacy']\n",
            "configs/common/ddp.py": WRAPPER,
            "configs/a.py": "_base_ = './common/ddp.py'\nmodel = dict()\n",
            "configs/legacy/old.py": "_base_ = '../common/ddp.py'\nmodel = dict()\n",
            # Hidden folders (caches, tool state) are not searched either.
            "configs/.backup/a.py": "_base_ = '../common/ddp.py'\nmodel = dict()\n",
        },
    )
    _, records = _records(root, "configs/common/ddp.py")
    assert _relative(root, _configs(records, "CL201")) == ["configs/a.py"]


def test_a_config_brought_in_keeps_the_target_it_declares(tmp_path: Path) -> None:
    """`--target` is for the named config; a config inheriting it that declares its own target
    is checked for that target, one that declares none takes `--target`."""
    leaf = "model = dict(type='M')\nmodel_wrapper_cfg = dict(type='MMDistributedDataParallel')\n"
    root = write_tree(
        tmp_path,
        {
            "configs/leaf.py": leaf,
            "configs/cuda_child.py": "_base_ = './leaf.py'\n# cfglint: target=cuda\n",
            "configs/plain_child.py": "_base_ = './leaf.py'\n",
        },
    )
    code, records = _records(root, "--target", "t20-gcu", "configs/leaf.py")
    assert code == 1
    [record] = [record for record in records if record["code"] == "CL201"]
    assert record["target"] == "t20-gcu"
    assert _relative(root, record["configs"]) == ["configs/leaf.py", "configs/plain_child.py"]


def test_a_config_reaching_the_base_through_a_symlinked_folder_is_brought_in(
    tmp_path: Path,
) -> None:
    """`configs/gcu/_base_` links to `configs/_base_`: `./_base_/rt.py` there is the same file."""
    root = write_tree(
        tmp_path / "project",
        {
            "pyproject.toml": "[tool.cfglint]\ndefault-target = 't20-gcu'\n",
            "configs/_base_/rt.py": WRAPPER,
            "configs/a/a.py": "_base_ = '../_base_/rt.py'\nmodel = dict(type='A')\n",
            "configs/gcu/g.py": "_base_ = './_base_/rt.py'\nmodel = dict(type='G')\n",
        },
    )
    (root / "configs/gcu/_base_").symlink_to("../_base_")
    exit_code, records = _records(root, "configs/_base_/rt.py")
    assert exit_code == 1
    # One diagnostic for the one file, whichever name each config reached it by.
    assert _relative(root, _configs(records, "CL201")) == ["configs/a/a.py", "configs/gcu/g.py"]
    located = [
        line.split(" [*]")[0]
        for line in run_cli("check", "configs", cwd=root).stdout.splitlines()
        if "rt.py:" in line and not line.startswith(" ")
    ]
    # Each rule once at the base (CL101: the key it lacks, at its first line).
    assert sorted(line.split(": ")[1] for line in located) == ["CL101", "CL201"]
    assert all(line.startswith("configs/_base_/rt.py:1:") for line in located)
