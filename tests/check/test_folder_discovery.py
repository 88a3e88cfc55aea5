"""What a folder walk checks without an `include` setting: configs in every format MMEngine
reads, and not the Python modules or data files that sit beside them."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from project_tree import write_tree

YAML_CONFIG = (
    "model:\n  type: M\n"
    "env_cfg:\n  dist_cfg:\n    backend: nccl\n"
    "model_wrapper_cfg:\n  type: MMDistributedDataParallel\n  device_ids: null\n"
)
METAFILE = "Collections:\n  - Name: RetinaNet\nModels:\n  - Name: retinanet_r50\n"
MODULE = (
    '"""A helper module of the project."""\n'
    "import os\n\n"
    "model = os.environ.get('MODEL', 'x')\n\n\n"
    "def build() -> None:\n    pass\n"
)


def _reported(stdout: str) -> list[str]:
    return sorted({row["filename"] for row in json.loads(stdout)})


def test_yaml_and_json_configs_are_found_and_data_files_are_not(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            "configs/cpu/debug_cpu.yaml": YAML_CONFIG,
            "configs/cpu/debug_cpu.json": json.dumps(
                {"model": {"type": "M"}, "env_cfg": {"dist_cfg": {"backend": "nccl"}}}
            ),
            "configs/cpu/metafile.yml": METAFILE,
            "configs/cpu/labels.json": json.dumps({"classes": ["cat", "dog"]}),
        },
    )
    result = run_cli("check", "--target", "cpu", "--output-format", "json", "configs", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _reported(result.stdout) == [
        str(tmp_path / "configs/cpu/debug_cpu.json"),
        str(tmp_path / "configs/cpu/debug_cpu.yaml"),
    ]
    assert "warning" not in result.stderr


def test_python_modules_are_skipped_and_counted(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            "pkg/helpers.py": MODULE,
            "pkg/__init__.py": "__version__ = '1.0'\n",
            "train.py": "import sys\n\nif __name__ == '__main__':\n    print(sys.argv)\n",
            "configs/leaf.py": (
                "model = dict(type='M')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
                "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
            ),
        },
    )
    result = run_cli("check", "--target", "cpu", ".", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        "cfglint: warning: skipped 3 .py files that do not look like MMEngine configs (code, or "
        "no config keys); name a file to check it anyway, or set `include` under [tool.cfglint]"
    ]
    # A file named on the command line is checked whatever it looks like.
    named = run_cli("check", "--target", "cpu", "pkg/helpers.py", cwd=tmp_path)
    assert named.exit_code == 1 and "skipped" not in named.stderr
    assert named.stdout.startswith("pkg/helpers.py:1:1: CL101")


def test_an_include_setting_is_taken_as_written(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cfglint]\ninclude = ["*.py"]\n',
            "configs/debug_cpu.yaml": YAML_CONFIG,
            "configs/odd.py": "x = 1\n",
        },
    )
    result = run_cli("check", "--target", "cpu", "--output-format", "json", "configs", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == [] and "skipped" not in result.stderr


def test_lazy_import_configs_are_found(tmp_path: Path) -> None:
    """A lazy-import config that only changes what its bases set (no assignment of a config
    key) is a config too; the package's empty `__init__.py` files are not."""
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            "configs/__init__.py": "# Copyright (c) OpenMMLab. All rights reserved.\n",
            "configs/_base_/__init__.py": "",
            "configs/_base_/runtime.py": (
                "from mmdet.models import RetinaNet\n\n"
                "model = dict(type=RetinaNet)\n"
                "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
            ),
            "configs/retinanet/retinanet_nccl.py": (
                "from mmengine.config import read_base\n\n"
                "with read_base():\n    from .._base_.runtime import *\n\n"
                "env_cfg.dist_cfg.backend = 'nccl'\n"
            ),
        },
    )
    result = run_cli("check", "--target", "cpu", "--output-format", "json", "configs", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert _reported(result.stdout) == [str(tmp_path / "configs/retinanet/retinanet_nccl.py")]
    assert "warning" not in result.stderr
