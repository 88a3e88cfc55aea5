"""`cfglint fix` placement through the CLI: which files change, byte for byte, and which never do.

The promise: a config of another target (or of no known target) that shares a base with the
configs being fixed is never changed; neither is anything outside the project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import mmengine_values, run_cli
from project_tree import changed_files, snapshot, write_tree

RUNTIME = (
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
LEAF = "_base_ = '../_base_/rt.py'\n"
OVERRIDE = "_base_ = '../_base_/rt.py'\n\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
MIXED_TARGETS = (
    '[tool.cfglint]\ndefault-target = "cuda"\n\n[tool.cfglint.targets]\n"configs/gcu/**" = '
    '"t20-gcu"\n'
)


def test_base_is_kept_without_settings_when_a_sibling_inherits_it(tmp_path: Path) -> None:
    """No pyproject.toml: the project is the path given, so a base outside it is not edited."""
    write_tree(
        tmp_path,
        {"configs/_base_/rt.py": RUNTIME, "configs/cuda/c.py": LEAF, "configs/gcu/g.py": LEAF},
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", "--target", "t20-gcu", "configs/gcu", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    after = snapshot(tmp_path)
    assert changed_files(before, after) == ["configs/gcu/g.py"]
    assert after["configs/gcu/g.py"] == OVERRIDE.encode()

    # Named together, both configs get the target: the base is fixed where the value is.
    write_tree(tmp_path, {"configs/gcu/g.py": LEAF})
    result = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert result.exit_code == 0
    assert changed_files(before, snapshot(tmp_path)) == ["configs/_base_/rt.py"]
    assert (tmp_path / "configs/_base_/rt.py").read_text() == RUNTIME.replace("nccl", "gloo")


def test_a_config_the_settings_exclude_still_counts_as_an_inheritor(tmp_path: Path) -> None:
    settings = MIXED_TARGETS.replace(
        'default-target = "cuda"\n', 'default-target = "cuda"\nexclude = ["configs/cuda/**"]\n'
    )
    write_tree(
        tmp_path,
        {
            "pyproject.toml": settings,
            "configs/_base_/rt.py": RUNTIME,
            "configs/cuda/c.py": LEAF,
            "configs/gcu/g.py": LEAF,
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert changed_files(before, snapshot(tmp_path)) == ["configs/gcu/g.py"]
    assert (tmp_path / "configs/gcu/g.py").read_bytes() == OVERRIDE.encode()


def test_a_base_reached_through_a_symlinked_folder_is_the_same_file(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": MIXED_TARGETS,
            "configs/_base_/rt.py": RUNTIME,
            "configs/cuda/c.py": LEAF,
            "configs/gcu/g.py": "_base_ = './_base_/rt.py'\n",
        },
    )
    (tmp_path / "configs/gcu/_base_").symlink_to("../_base_")
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    # The snapshot follows the link: the base is unchanged under both names.
    assert changed_files(before, snapshot(tmp_path)) == ["configs/gcu/g.py"]
    assert (tmp_path / "configs/gcu/g.py").read_text() == (
        "_base_ = './_base_/rt.py'\n\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    )


def test_a_config_of_another_settings_file_inside_the_project_counts(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cfglint]\ndefault-target = "t20-gcu"\n',
            "configs/_base_/rt.py": RUNTIME,
            "configs/gcu/g.py": LEAF,
            "cuda_proj/pyproject.toml": '[tool.cfglint]\ndefault-target = "cuda"\n',
            "cuda_proj/c.py": "_base_ = '../configs/_base_/rt.py'\n",
        },
    )
    before = snapshot(tmp_path)
    assert run_cli("fix", "configs", cwd=tmp_path).exit_code == 0
    assert changed_files(before, snapshot(tmp_path)) == ["configs/gcu/g.py"]


@pytest.fixture()
def fake_site(tmp_path: Path) -> Path:
    """An installed `mmdet` with one base config, found through PYTHONPATH."""
    site = tmp_path / "site"
    write_tree(
        site,
        {
            "mmdet/__init__.py": "",
            "mmdet/.mim/configs/_base_/default_runtime.py": (
                "default_scope = 'mmdet'\n"
                "env_cfg = dict(\n    cudnn_benchmark=False,\n"
                "    dist_cfg=dict(backend='nccl'),\n)\n"
            ),
        },
    )
    return site


@pytest.mark.parametrize("mode", [0o644, 0o444])
def test_an_installed_package_base_is_never_edited(
    tmp_path: Path, fake_site: Path, mode: int
) -> None:
    base = fake_site / "mmdet/.mim/configs/_base_/default_runtime.py"
    os.chmod(base, mode)
    original = base.read_bytes()
    project = write_tree(
        tmp_path / "project",
        {
            "pyproject.toml": '[tool.cfglint]\ndefault-target = "t20-gcu"\n',
            "leaf.py": (
                "_base_ = ['mmdet::_base_/default_runtime.py']\n"
                "model = dict(type='M')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
            ),
        },
    )
    env = dict(os.environ, PYTHONPATH=str(fake_site))
    result = run_cli("fix", cwd=project, env=env)
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert base.read_bytes() == original
    assert (project / "leaf.py").read_text() == (
        "_base_ = ['mmdet::_base_/default_runtime.py']\n"
        "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
        "model = dict(type='M')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    )
    # The same when the package lies inside the project (a virtual environment there).
    inside = project / ".venv/lib/python3.11/site-packages"
    inside.parent.mkdir(parents=True)
    os.rename(fake_site, inside)
    (project / "leaf.py").write_text(
        "_base_ = ['mmdet::_base_/default_runtime.py']\nmodel = dict(type='M')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(inside))
    assert run_cli("fix", "leaf.py", cwd=project, env=env).exit_code == 0
    assert (inside / "mmdet/.mim/configs/_base_/default_runtime.py").read_bytes() == original


def test_dict_override_of_a_non_dict_base_value_says_delete(tmp_path: Path) -> None:
    """MMEngine refuses to merge a dict over `None`: the override replaces it."""
    write_tree(
        tmp_path,
        {
            "pyproject.toml": MIXED_TARGETS,
            "configs/_base_/rt.py": RUNTIME.replace(
                "dict(type='MMDistributedDataParallel', device_ids=None)", "None"
            ),
            "configs/cuda/c.py": LEAF,
            "configs/gcu/g.py": LEAF,
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "Fixed 2 errors.\nAll checks passed!\n")
    assert changed_files(before, snapshot(tmp_path)) == ["configs/gcu/g.py"]
    leaf = tmp_path / "configs/gcu/g.py"
    assert leaf.read_text() == (
        "_base_ = '../_base_/rt.py'\n\n"
        "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n\n"
        "model_wrapper_cfg = dict(\n"
        "    _delete_=True,\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,\n"
        "    find_unused_parameters=False,\n"
        "    device_ids=None,\n"
        ")\n"
    )
    wrapper, backend = mmengine_values(leaf, "model_wrapper_cfg", "env_cfg.dist_cfg.backend")
    assert wrapper == {
        "type": "MMDistributedDataParallel",
        "broadcast_buffers": False,
        "find_unused_parameters": False,
        "device_ids": None,
    }
    assert backend == "gloo"


WRAPPER_WITH_IDS = (
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(\n"
    "    type='MMDistributedDataParallel',\n"
    "    device_ids=[0],  # single card\n"
    "    find_unused_parameters=True)\n"
)


def test_removing_a_base_key_in_a_leaf_replaces_the_whole_dict(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": MIXED_TARGETS,
            "configs/_base_/rt.py": WRAPPER_WITH_IDS,
            "configs/cuda/c.py": LEAF,
            "configs/gcu/g.py": LEAF + "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
            "model_wrapper_cfg = dict(device_ids=None)\n",
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", "--select", "CL203", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert changed_files(before, snapshot(tmp_path)) == ["configs/cuda/c.py"]
    leaf = tmp_path / "configs/cuda/c.py"
    assert leaf.read_text() == (
        "_base_ = '../_base_/rt.py'\n\n"
        "model_wrapper_cfg = dict(\n"
        "    _delete_=True,\n"
        "    type='MMDistributedDataParallel',\n"
        "    find_unused_parameters=True,\n"
        ")\n"
    )
    assert mmengine_values(leaf, "model_wrapper_cfg") == [
        {"type": "MMDistributedDataParallel", "find_unused_parameters": True}
    ]


def test_a_removal_that_cannot_be_written_is_not_offered(tmp_path: Path) -> None:
    """The rest of the dict holds a value cfglint cannot write: no `[*]`, no JSON fix."""
    write_tree(
        tmp_path,
        {
            "pyproject.toml": MIXED_TARGETS,
            "configs/_base_/rt.py": "import os\n"
            + WRAPPER_WITH_IDS.replace("=True", "=os.cpu_count() > 8"),
            "configs/cuda/c.py": LEAF,
            "configs/gcu/g.py": LEAF + "model_wrapper_cfg = dict(device_ids=None)\n",
        },
    )
    text = run_cli("check", "--select", "CL203", cwd=tmp_path)
    assert text.exit_code == 1
    assert "CL203 `device_ids=[0]`" in text.stdout and "[*]" not in text.stdout
    report = run_cli("check", "--select", "CL203", "--output-format", "json", cwd=tmp_path)
    import json

    (record,) = json.loads(report.stdout)
    assert record["fix"] is None
    before = snapshot(tmp_path)
    fixed = run_cli("fix", "--select", "CL203", cwd=tmp_path)
    assert fixed.exit_code == 1 and "Fixed" not in fixed.stdout
    assert snapshot(tmp_path) == before
    assert "holds `os.cpu_count() > 8`" in fixed.stderr


ECCL_TARGET = (
    "name: t20-eccl\nextends: t20-gcu\ndescription: T20 with eccl\nkeys:\n"
    "  env_cfg.dist_cfg.backend:\n    rule: CL101\n    allowed: [eccl]\n    default: nccl\n"
    "    fix: {value: eccl, safe: true}\n"
)


def test_origin_placement_reports_two_targets_that_need_different_values(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cfglint]\nextra-targets = ["eccl.yaml"]\n\n'
            '[tool.cfglint.targets]\n"a/**" = "t20-eccl"\n"b/**" = "cpu"\n',
            "eccl.yaml": ECCL_TARGET,
            "_base_/rt.py": RUNTIME.replace("nccl", "gloo"),
            "a/a.py": LEAF,
            "b/b.py": LEAF,
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", "--fix-placement", "origin", cwd=tmp_path)
    assert result.exit_code == 1
    assert snapshot(tmp_path) == before
    assert result.stderr == (
        "cfglint: warning: _base_/rt.py: `env_cfg.dist_cfg.backend` is not changed: configs for "
        "t20-eccl and cpu inherit it and need different values (e.g. b/b.py); fix them with "
        "--fix-placement leaf\n"
    )
    # `auto` gives the one config of that target its own value instead.
    assert run_cli("fix", cwd=tmp_path).exit_code == 0
    assert changed_files(before, snapshot(tmp_path)) == ["a/a.py"]


def test_a_leaf_inherited_by_a_config_of_another_target_is_not_changed(tmp_path: Path) -> None:
    """The value sits in a T20 config that a CUDA config inherits: no placement keeps the
    CUDA config as it is, so the fix is reverted and reported, and nothing is counted."""
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cfglint]\ndefault-target = "t20-gcu"\n',
            "l0.py": RUNTIME,
            "l1.py": "# cfglint: target=cuda\n_base_ = './l0.py'\n",
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert result.exit_code == 1
    assert "Fixed" not in result.stdout and "Found 1 error on target t20-gcu." in result.stdout
    assert snapshot(tmp_path) == before
    assert (
        "cfglint: warning: l0.py: fix reverted: it would also change `env_cfg.dist_cfg` of l1.py\n"
    ) in result.stderr


@pytest.mark.parametrize(
    ("child_target", "fixed"),
    [("t20-gcu", True), ("cuda", False)],
)
def test_a_fix_in_a_leaf_that_another_config_inherits(
    tmp_path: Path, child_target: str, fixed: bool
) -> None:
    """A leaf without `model_wrapper_cfg` that a FlexibleRunner config builds on (CL201 does not
    check FlexibleRunner configs). The override written in the leaf reaches the child too: fine
    when the child has the same target, never when the child is a CUDA config."""
    leaf = "model = dict(type='M')\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    child = (
        "_base_ = './leaf.py'\n"
        f"# cfglint: target={child_target}\n"
        "runner_type = 'FlexibleRunner'\n"
        "strategy = dict(type='DeepSpeedStrategy')\n"
    )
    root = write_tree(tmp_path, {"configs/leaf.py": leaf, "configs/leaf_ds.py": child})
    before = snapshot(root)
    result = run_cli("fix", "--target", "t20-gcu", "configs/leaf.py", cwd=root)
    after = snapshot(root)
    if fixed:
        assert result.exit_code == 0, result.stdout + result.stderr
        assert changed_files(before, after) == ["configs/leaf.py"]
        assert "Fixed 1 error." in result.stdout
        assert mmengine_values(root / "configs/leaf.py", "model_wrapper_cfg.device_ids") == [None]
    else:
        assert result.exit_code == 1, result.stdout + result.stderr
        assert changed_files(before, after) == []
        assert "would also change `model_wrapper_cfg" in result.stderr


@pytest.mark.parametrize("placement", ["auto", "origin"])
def test_a_named_base_without_settings_is_not_its_own_inheritor(
    tmp_path: Path, placement: str
) -> None:
    """A git work tree without settings, the base named alone: the two configs inheriting it
    have the one target, so the value is fixed in the base, and nothing else inherits it."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    write_tree(
        tmp_path,
        {"configs/_base_/rt.py": RUNTIME, "configs/gcu/g1.py": LEAF, "configs/gcu/g2.py": LEAF},
    )
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=300)
    before = snapshot(tmp_path)
    result = run_cli(
        "fix",
        "--target",
        "t20-gcu",
        "--fix-placement",
        placement,
        "configs/_base_/rt.py",
        cwd=tmp_path,
    )
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert result.stderr == ""
    after = snapshot(tmp_path)
    assert [name for name in changed_files(before, after) if not name.startswith(".git/")] == [
        "configs/_base_/rt.py"
    ]
    assert after["configs/_base_/rt.py"] == RUNTIME.replace("nccl", "gloo").encode()
