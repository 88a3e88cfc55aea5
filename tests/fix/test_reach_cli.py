"""A fix lands where it takes effect: values reached through variables, `_base_.x`, `.update()`,
item assignments, parentheses and `;` are changed where they are written (through the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli
from project_tree import changed_files, snapshot, write_tree

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
HEAD = (
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)

CASES = {
    "module-level variable": (
        "backend = 'nccl'\nenv_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend=backend))\n",
        "backend = 'gloo'\nenv_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend=backend))\n",
    ),
    "dict variable": (
        "dist = dict(backend='nccl')\nenv_cfg = dict(cudnn_benchmark=False, dist_cfg=dist)\n",
        "dist = dict(backend='gloo')\nenv_cfg = dict(cudnn_benchmark=False, dist_cfg=dist)\n",
    ),
    "update()": (
        "env_cfg = dict(cudnn_benchmark=False)\nenv_cfg.update(dist_cfg=dict(backend='nccl'))\n",
        "env_cfg = dict(cudnn_benchmark=False)\nenv_cfg.update(dist_cfg=dict(backend='gloo'))\n",
    ),
    "** unpacking": (
        "base_env = dict(cudnn_benchmark=True, dist_cfg=dict(backend='nccl'))\n"
        "env_cfg = dict(**base_env, mp_cfg=dict(mp_start_method='fork'))\n",
        "base_env = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
        "env_cfg = dict(**base_env, mp_cfg=dict(mp_start_method='fork'))\n",
    ),
    "item assignment": (
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
        "env_cfg['dist_cfg']['backend'] = 'nccl'\n",
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
        "env_cfg['dist_cfg']['backend'] = 'gloo'\n",
    ),
    "parentheses": (
        "env_cfg = (dict(cudnn_benchmark=False, dist_cfg=(dict(backend=('nccl')))))\n",
        "env_cfg = (dict(cudnn_benchmark=False, dist_cfg=(dict(backend=('gloo')))))\n",
    ),
    "semicolons": (
        "x = 1; env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl')); y = 2\n",
        "x = 1; env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo')); y = 2\n",
    ),
    "key missing beside **": (
        "extra = dict(mp_cfg=dict(mp_start_method='fork'))\n"
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(**extra))\n",
        "extra = dict(mp_cfg=dict(mp_start_method='fork'))\n"
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(**extra, backend='gloo'))\n",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_is_fixed_where_it_is_written(tmp_path: Path, case: str) -> None:
    source, expected = CASES[case]
    write_tree(tmp_path, {"pyproject.toml": SETTINGS, "a.py": HEAD + source})
    result = run_cli("fix", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == HEAD + expected
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("All checks passed!\n")
    assert result.stderr == ""


def test_value_read_from_a_base_variable(tmp_path: Path) -> None:
    """`backend=_base_.backend`: the variable in the base is the value's one definition."""
    write_tree(
        tmp_path,
        {
            "pyproject.toml": SETTINGS,
            "_base_/vars.py": "backend = 'nccl'\n",
            "leaf.py": "_base_ = './_base_/vars.py'\n" + HEAD + "env_cfg = dict(cudnn_benchmark"
            "=False, dist_cfg=dict(backend=_base_.backend))\n",
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert changed_files(before, snapshot(tmp_path)) == ["_base_/vars.py"]
    assert (tmp_path / "_base_/vars.py").read_text() == "backend = 'gloo'\n"


def test_base_variable_shared_with_a_cuda_config_gets_a_leaf_override(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": SETTINGS,
            "_base_/vars.py": "backend = 'nccl'\n",
            "leaf.py": "_base_ = './_base_/vars.py'\n" + HEAD + "env_cfg = dict(cudnn_benchmark"
            "=False, dist_cfg=dict(backend=_base_.backend))\n",
            "cuda.py": "# cfglint: target=cuda\n_base_ = './_base_/vars.py'\n"
            + HEAD
            + "env_cfg = dict(dist_cfg=dict(backend=_base_.backend))\n",
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (0, "Fixed 1 error.\nAll checks passed!\n")
    assert changed_files(before, snapshot(tmp_path)) == ["leaf.py"]
    assert (
        (tmp_path / "leaf.py")
        .read_text()
        .endswith("env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n")
    )
