"""A key no file writes: one finding at the base the configs lacking it share, one edit there,
and the configs that need another value keep an override of their own."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import mmengine_values, run_cli
from project_tree import changed_files, snapshot, write_tree

RUNTIME = (
    "default_scope = 'mmdet'\n"
    "\n"
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
    "log_level = 'INFO'\n"
)
WRAPPER_BLOCK = (
    "model_wrapper_cfg = dict(\n"
    "    type='MMDistributedDataParallel',\n"
    "    broadcast_buffers=False,\n"
    "    find_unused_parameters={find_unused},\n"
    "    device_ids=None,\n"
    ")\n"
)
TREE = {
    "configs/_base_/default_runtime.py": RUNTIME,
    "configs/det/a.py": "_base_ = '../_base_/default_runtime.py'\n\nmodel = dict(type='A')\n",
    "configs/det/b.py": "_base_ = '../_base_/default_runtime.py'\n\nmodel = dict(type='B')\n",
    "configs/odd/c.py": (
        "_base_ = '../_base_/default_runtime.py'\n\nmodel = dict(type='C')\n"
        "find_unused_parameters = True\n"
    ),
}
MESSAGE = (
    "CL201 [*] no `model_wrapper_cfg`: the default DDP wrap gets device_ids=[LOCAL_RANK], which "
    "fails for a CPU model"
)


def test_one_finding_at_the_shared_base_and_one_for_the_config_that_differs(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, TREE)
    result = run_cli("check", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:5] == [
        f"configs/_base_/default_runtime.py:1:1: {MESSAGE}",
        "  = applies to 2 configs: configs/det/a.py, configs/det/b.py",
        "  help: Add `model_wrapper_cfg = dict(type='MMDistributedDataParallel', ..., "
        "device_ids=None)`",
        f"configs/odd/c.py:1:1: {MESSAGE}",
        "  help: Add `model_wrapper_cfg = dict(type='MMDistributedDataParallel', ..., "
        "device_ids=None)`",
    ]
    assert "Found 2 errors on target t20-gcu." in result.stdout


def test_the_fix_writes_the_key_once_in_the_base_and_keeps_the_different_leaf(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, TREE)
    before = snapshot(tmp_path)
    fixed = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert "reverted" not in fixed.stdout + fixed.stderr
    after = snapshot(tmp_path)
    assert changed_files(before, after) == ["configs/_base_/default_runtime.py", "configs/odd/c.py"]
    assert after["configs/_base_/default_runtime.py"].decode() == (
        RUNTIME + "\n" + WRAPPER_BLOCK.format(find_unused="False")
    )
    assert after["configs/odd/c.py"].decode() == (
        "_base_ = '../_base_/default_runtime.py'\n\n"
        + WRAPPER_BLOCK.format(find_unused="True")
        # The top-level key MMEngine now ignores beside model_wrapper_cfg goes (CL303).
        + "\nmodel = dict(type='C')\n"
    )
    keys = ("model_wrapper_cfg.device_ids", "model_wrapper_cfg.find_unused_parameters")
    assert mmengine_values(tmp_path / "configs/det/a.py", *keys) == [None, False]
    assert mmengine_values(tmp_path / "configs/odd/c.py", *keys) == [None, True]
    again = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert again.exit_code == 0 and snapshot(tmp_path) == after


def test_leaf_placement_still_writes_every_leaf(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    before = snapshot(tmp_path)
    fixed = run_cli(
        "fix", "--target", "t20-gcu", "--fix-placement", "leaf", "configs", cwd=tmp_path
    )
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert changed_files(before, snapshot(tmp_path)) == [
        "configs/det/a.py",
        "configs/det/b.py",
        "configs/odd/c.py",
    ]


def test_a_config_setting_the_key_itself_keeps_the_base_out(tmp_path: Path) -> None:
    """Adding the key to the base would merge into that config's own wrapper."""
    tree = dict(TREE)
    tree["configs/odd/c.py"] = (
        "_base_ = '../_base_/default_runtime.py'\n\nmodel = dict(type='C')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    )
    write_tree(tmp_path, tree)
    result = run_cli("check", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert result.exit_code == 1
    assert [line.split(": CL")[0] for line in result.stdout.splitlines() if ": CL" in line] == [
        "configs/det/a.py:1:1",
        "configs/det/b.py:1:1",
    ]


def test_an_unchecked_config_setting_the_key_sends_the_fix_to_the_leaves(tmp_path: Path) -> None:
    """Only configs/det is checked; configs/odd/c.py is not, but reads the base and sets the
    key: the fix must not go into the base."""
    tree = dict(TREE)
    tree["pyproject.toml"] = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
    tree["configs/odd/c.py"] = (
        "_base_ = '../_base_/default_runtime.py'\n\nmodel = dict(type='C')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    )
    write_tree(tmp_path, tree)
    before = snapshot(tmp_path)
    fixed = run_cli("fix", "configs/det", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert changed_files(before, snapshot(tmp_path)) == ["configs/det/a.py", "configs/det/b.py"]


def test_a_model_base_beside_its_leaves_is_a_base_and_the_fix_lands(tmp_path: Path) -> None:
    """OpenMMLab's layout: leaves inherit a sibling `_base_*.py` holding the model and
    `../_base_/default_runtime.py`. Adding keys to the sibling would make MMEngine refuse the
    key both bases set; the sibling is a base, never a leaf of its own."""
    write_tree(
        tmp_path,
        {
            "configs/_base_/default_runtime.py": (
                "default_scope = 'mmdet'\n"
                "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
            ),
            "configs/det/_base_model.py": "model = dict(type='RetinaNet', depth=50)\n",
            "configs/det/small.py": (
                "_base_ = ['./_base_model.py', '../_base_/default_runtime.py']\n"
                "train_cfg = dict(max_epochs=12)\n"
            ),
            "configs/det/large.py": (
                "_base_ = ['./_base_model.py', '../_base_/default_runtime.py']\n"
                "train_cfg = dict(max_epochs=24)\n"
            ),
        },
    )
    check = run_cli(
        "check", "--target", "t20-gcu", "--output-format", "json", "configs", cwd=tmp_path
    )
    reported = json.loads(check.stdout)
    assert {row["code"] for row in reported} == {"CL101", "CL201"}
    for row in reported:
        assert "_base_model.py" not in " ".join(row.get("configs", [])), row
    fixed = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert "reverted" not in fixed.stdout + fixed.stderr
    assert "Fixed 2 errors." in fixed.stdout
    keys = ("env_cfg.dist_cfg.backend", "model_wrapper_cfg.device_ids", "model.type")
    for leaf in ("small.py", "large.py"):
        assert mmengine_values(tmp_path / "configs/det" / leaf, *keys) == [
            "gloo",
            None,
            "RetinaNet",
        ]
    assert (tmp_path / "configs/det/_base_model.py").read_text() == (
        "model = dict(type='RetinaNet', depth=50)\n"
    )


def test_configs_without_a_target_are_one_error(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    (tmp_path / ".git").mkdir()  # the project ends here: no settings above it are read
    result = run_cli("check", "configs", cwd=tmp_path)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("cfglint: error:")]
    assert errors == [
        "cfglint: error: no target for 3 configs (configs/det/a.py, configs/det/b.py, "
        "configs/odd/c.py): pass --target NAME, add `# cfglint: target=NAME` to the config, or "
        "set `default-target` (or a `targets` glob) under [tool.cfglint] in pyproject.toml; "
        "`cfglint targets` lists the names"
    ]
