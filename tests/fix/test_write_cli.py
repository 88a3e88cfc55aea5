"""Files `fix` cannot or must not write: one line each, the other files still fixed, exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO_ROOT, run_cli
from project_tree import snapshot, write_tree

SETTINGS = '[tool.cfglint]\ndefault-target = "t20-gcu"\n'
BROKEN = (
    "model = dict(type='M')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
)
FIXED = BROKEN.replace("nccl", "gloo")


def test_a_read_only_file_is_refused_even_for_root(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": SETTINGS, "a.py": BROKEN, "b.py": BROKEN})
    os.chmod(tmp_path / "a.py", 0o444)
    result = run_cli("fix", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        "cfglint: error: cannot write a.py: the file is read-only (no write permission bit)\n"
    )
    assert (tmp_path / "a.py").read_text() == BROKEN
    assert (tmp_path / "b.py").read_text() == FIXED
    assert result.stdout.splitlines()[-3:] == [
        "Fixed 1 error.",
        "Found 1 error on target t20-gcu.",
        "Exit code 2: 1 file could not be written.",
    ]
    assert (tmp_path / "a.py").stat().st_mode & 0o777 == 0o444


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to drop the capability that ignores folder permissions",
)
def test_a_folder_that_cannot_be_written_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"pyproject.toml": SETTINGS, "ro/a.py": BROKEN, "b_ok.py": BROKEN, "z_ok.py": BROKEN},
    )
    os.chmod(tmp_path / "ro", 0o555)
    try:
        completed = subprocess.run(
            [
                "setpriv",
                "--bounding-set=-dac_override,-dac_read_search,-fowner",
                sys.executable,
                "-m",
                "cfglint",
                "fix",
                "ro/a.py",
                "b_ok.py",
                "z_ok.py",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
            timeout=300,
        )
    finally:
        os.chmod(tmp_path / "ro", 0o755)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr == "cfglint: error: cannot write ro/a.py: Permission denied\n"
    assert (tmp_path / "ro/a.py").read_text() == BROKEN
    assert (tmp_path / "b_ok.py").read_text() == FIXED
    assert (tmp_path / "z_ok.py").read_text() == FIXED
    assert sorted(p.name for p in (tmp_path / "ro").iterdir()) == ["a.py"]  # no temp left


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away"
)
def test_owner_and_group_are_kept(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": SETTINGS, "a.py": BROKEN})
    os.chown(tmp_path / "a.py", 12345, 23456)
    assert run_cli("fix", cwd=tmp_path).exit_code == 0
    status = (tmp_path / "a.py").stat()
    assert (status.st_uid, status.st_gid) == (12345, 23456)
    assert (tmp_path / "a.py").read_text() == FIXED


def test_fixed_counts_only_violations_that_are_gone(tmp_path: Path) -> None:
    """Two fixes applied, one of them reverted (a CUDA config inherits the file it edited):
    one error fixed, and the one left is not offered as fixable any more."""
    write_tree(
        tmp_path,
        {
            "pyproject.toml": SETTINGS,
            "ok.py": BROKEN,
            "shared.py": BROKEN,
            "cuda.py": "# cfglint: target=cuda\n_base_ = './shared.py'\n",
        },
    )
    before = snapshot(tmp_path)
    result = run_cli("fix", cwd=tmp_path)
    assert result.exit_code == 1
    after = snapshot(tmp_path)
    assert [name for name in after if after[name] != before[name]] == ["ok.py"]
    assert result.stdout == (
        "shared.py:3:61: CL101 `env_cfg.dist_cfg.backend` is 'nccl', which does not work on "
        "the target: use 'gloo' or 'eccl'\n"
        "  see: cfglint rule CL101\n"
        "Fixed 1 error.\n"
        "Found 1 error on target t20-gcu.\n"
    )
