"""`check` and `fix` on lazy-import configs (`with read_base():`), through the CLI.

A lazy config's bases are the modules its `read_base()` block imports: a value set there is
reported at the base's line, fixed there when every config of the project reading it has the
same target, and MMEngine loads the fixed config.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from helpers import mmengine_values, run_cli
from project_tree import changed_files, snapshot, write_tree

RUNTIME = (
    "from mmengine.hooks import LoggerHook\n"
    "\n"
    "default_hooks = dict(logger=dict(type=LoggerHook, interval=50))\n"
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
LEAF = (
    "from mmengine.config import read_base\n"
    "\n"
    "with read_base():\n"
    "    from .._base_.runtime import *\n"
    "\n"
    "from mmdet.models import RetinaNet\n"
    "\n"
    "model = dict(type=RetinaNet, num_classes=80)\n"
)
TWO_TARGETS = (
    '[tool.cfglint]\ndefault-target = "cuda"\n\n[tool.cfglint.targets]\n"configs/gcu/**" = '
    '"t20-gcu"\n'
)
FLAGGED = (
    "configs/_base_/runtime.py:4:61: CL101 {fixable}`env_cfg.dist_cfg.backend` is 'nccl', "
    "which does not work on the target: use 'gloo' or 'eccl'\n"
    "  = applies to 1 config: configs/gcu/retinanet.py\n"
)


@pytest.mark.skipif(importlib.util.find_spec("mmengine") is None, reason="needs MMEngine")
def test_a_base_value_is_flagged_at_its_line_and_fixed_there(tmp_path: Path) -> None:
    write_tree(tmp_path, {"configs/_base_/runtime.py": RUNTIME, "configs/gcu/retinanet.py": LEAF})
    checked = run_cli("check", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert checked.exit_code == 1, checked.stderr
    assert checked.stdout.startswith(FLAGGED.format(fixable="[*] "))
    assert checked.stderr == ""

    before = snapshot(tmp_path)
    fixed = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert (fixed.exit_code, fixed.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert changed_files(before, snapshot(tmp_path)) == ["configs/_base_/runtime.py"]
    runtime = (tmp_path / "configs/_base_/runtime.py").read_text(encoding="utf-8")
    assert runtime == RUNTIME.replace("'nccl'", "'gloo'")
    leaf = tmp_path / "configs/gcu/retinanet.py"
    assert mmengine_values(leaf, "env_cfg.dist_cfg.backend", "model.type") == [
        "gloo",
        "mmdet.models.RetinaNet",
    ]


def _skip_without_mmengine() -> None:
    if importlib.util.find_spec("mmengine") is None:
        pytest.skip("needs MMEngine")


def test_a_base_another_target_reads_is_changed_in_the_leaf(tmp_path: Path) -> None:
    """The cuda config inherits the base through `read_base()` too: the base stays as it is,
    and the gcu config changes the imported dict in place (an assignment of `env_cfg` would
    replace it whole: nothing merges in a lazy-import config)."""
    gcu = _fix_the_gcu_config(tmp_path, ("runtime.py", RUNTIME), LEAF, "1 error")
    assert gcu.read_text(encoding="utf-8") == LEAF + "\nenv_cfg['dist_cfg']['backend'] = 'gloo'\n"
    checked = run_cli("check", "configs/gcu/retinanet.py", cwd=tmp_path)
    assert (checked.exit_code, checked.stdout) == (0, "All checks passed!\n")

    _skip_without_mmengine()
    assert mmengine_values(gcu, "env_cfg.dist_cfg.backend", "env_cfg.cudnn_benchmark") == [
        "gloo",
        False,
    ]
    cuda = tmp_path / "configs/cuda/retinanet.py"
    assert mmengine_values(cuda, "env_cfg.dist_cfg.backend") == ["nccl"]


LEGACY = "dist_params = dict(backend='gloo')\nenv_cfg = dict(cudnn_benchmark=False)\n"
LEGACY_LEAF = (
    "from mmengine.config import read_base\n"
    "\n"
    "with read_base():\n"
    "    from .._base_.legacy import *\n"
    "\n"
    'model = dict(type="RetinaNet")\n'
)


def test_a_missing_level_a_new_name_and_a_removal_in_a_lazy_leaf(tmp_path: Path) -> None:
    """The base's `env_cfg` lacks `dist_cfg`: it is assigned whole (CL302 moves `dist_params`
    there, CL101 wants 'gloo'); the imported `dist_params` is deleted; no base sets
    `model_wrapper_cfg`, so a plain assignment adds it (CL201). The file's quotes are kept."""
    gcu = _fix_the_gcu_config(tmp_path, ("legacy.py", LEGACY), LEGACY_LEAF, "3 errors")
    assert gcu.read_text(encoding="utf-8") == LEGACY_LEAF + (
        "\n"
        "model_wrapper_cfg = dict(\n"
        '    type="MMDistributedDataParallel",\n'
        "    broadcast_buffers=False,\n"
        "    find_unused_parameters=False,\n"
        "    device_ids=None,\n"
        ")\n"
        "\n"
        'env_cfg["dist_cfg"] = dict(backend="gloo")\n'
        "del dist_params\n"
    )

    _skip_without_mmengine()
    assert mmengine_values(
        gcu, "env_cfg", "dist_params", "model_wrapper_cfg.type", "model_wrapper_cfg.device_ids"
    ) == [
        {"cudnn_benchmark": False, "dist_cfg": {"backend": "gloo"}},
        "absent",
        "MMDistributedDataParallel",
        None,
    ]


def _fix_the_gcu_config(tmp_path: Path, base: tuple[str, str], leaf: str, fixed: str) -> Path:
    """A gcu and a cuda config reading one base (`base`: its name under `configs/_base_/` and
    text) through `read_base()`: `fix configs/gcu` fixes the `fixed` count of errors in the gcu
    config alone, and a second `fix` changes nothing. The gcu config's path."""
    name, text = base
    write_tree(
        tmp_path,
        {
            "pyproject.toml": TWO_TARGETS,
            f"configs/_base_/{name}": text,
            "configs/gcu/retinanet.py": leaf,
            "configs/cuda/retinanet.py": leaf,
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", "configs/gcu", cwd=tmp_path)
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        f"Fixed {fixed}.\nAll checks passed!\n",
        "",
    )
    assert changed_files(before, snapshot(tmp_path)) == ["configs/gcu/retinanet.py"]
    fixed_once = snapshot(tmp_path)
    again = run_cli("fix", "configs/gcu", cwd=tmp_path)
    assert (again.exit_code, again.stdout) == (0, "All checks passed!\n")
    assert changed_files(fixed_once, snapshot(tmp_path)) == []
    return tmp_path / "configs/gcu/retinanet.py"
