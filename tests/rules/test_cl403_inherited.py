"""CL403 scans every value of a config, its bases' included (loader/scan.py reads them as
stored): each CUDA device string is still reported where it is written, once for the configs
inheriting it, and a value a config overrides is reported at the override."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from project_tree import write_tree

FILES = {
    "configs/_base_/model.py": (
        "model = dict(type='M', data_preprocessor=dict(device='cuda'),\n"
        "             heads=[dict(device='cuda:1'), dict(x=1)], device='cpu')\n"
        "hooks = dict(a=dict(map_location='cuda'))\n"
    ),
    "configs/_base_/heads.py": (
        "_base_ = ['./model.py']\nmodel = dict(heads=[dict(device='cuda:2')])\n"
    ),
    "configs/a.py": (
        "_base_ = ['./_base_/heads.py']\n"
        "model = dict(data_preprocessor=dict(device='cuda:0'))\n"
        "device = 'cuda'\n"
    ),
    "configs/b.py": "_base_ = ['./_base_/heads.py']\nhooks = dict(b=dict(device='cuda'))\n",
    # Overrides the base's CUDA device with one that is not: nothing there for this config.
    "configs/c.py": (
        "_base_ = ['./_base_/heads.py']\nmodel = dict(data_preprocessor=dict(device='cpu'))\n"
    ),
}


def test_device_strings_in_bases_are_reported_where_written(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    result = run_cli(
        "check", "--no-cache", "--target", "t20-gcu", "--select", "CL403",
        "--output-format", "json", "configs", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    found = [
        (
            Path(item["filename"]).relative_to(tmp_path).as_posix(),
            item["location"]["row"],
            item["key"],
            [Path(config).name for config in item["configs"]],
        )
        for item in json.loads(result.stdout)
    ]
    assert found == [
        ("configs/_base_/heads.py", 2, "model.heads.0.device", ["a.py", "b.py", "c.py"]),
        ("configs/_base_/model.py", 1, "model.data_preprocessor.device", ["b.py"]),
        ("configs/_base_/model.py", 3, "hooks.a.map_location", ["a.py", "b.py", "c.py"]),
        ("configs/a.py", 2, "model.data_preprocessor.device", ["a.py"]),
        ("configs/b.py", 2, "hooks.b.device", ["b.py"]),
    ]
