"""`kill -9` in the middle of `cfglint fix` (item 14 of the hardening issue): no file is ever
half-written, and no temporary file of cfglint's stays behind once a later run has written to
the folder (the red team found a 0-byte `.NAME.py.XXXX.cfglint-tmp` after 1 run in 9)."""

from __future__ import annotations

import ast
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_cases import REPO_ROOT

pytestmark = pytest.mark.corpus  # a dozen fix runs: slow

BROKEN = (
    "model = dict(type='M', layers=[{n}] * 8)\n"
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)


def _temporary_files(root: Path) -> list[str]:
    return sorted(
        path.name
        for path in root.iterdir()
        if path.name.endswith(".cfglint-tmp") or path.name.startswith(".cfglint-")
    )


def _fix(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cfglint", "fix", "--target", "t20-gcu", "."],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def test_kill_9_during_fix_leaves_whole_files_and_no_temporary_file(tmp_path: Path) -> None:
    originals = {f"c{n:02}.py": BROKEN.format(n=n) for n in range(40)}
    for name, text in originals.items():
        (tmp_path / name).write_text(text)
    fixed = {name: text.replace("'nccl'", "'gloo'") for name, text in originals.items()}
    started = time.monotonic()
    _fix(tmp_path).wait(timeout=300)
    full_run = time.monotonic() - started
    random.seed(14)
    for _attempt in range(12):
        for name, text in originals.items():  # broken again, for the next run to fix
            (tmp_path / name).write_text(text)
        process = _fix(tmp_path)
        time.sleep(random.uniform(0.3, max(0.4, full_run)))
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        for name in originals:
            text = (tmp_path / name).read_text()
            assert text in (originals[name], fixed[name]), f"{name} half-written: {text!r}"
            ast.parse(text)
    _fix(tmp_path).wait(timeout=300)
    assert _temporary_files(tmp_path) == []
    for name, text in fixed.items():
        assert (tmp_path / name).read_text() == text
