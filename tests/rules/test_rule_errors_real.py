"""A rule page's quoted error is the one real MMEngine raises for the rule's INVALID example.

Run on this machine's CPU-only PyTorch, in a subprocess, with CUDA hidden as on a `cpu` host.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO_ROOT

from cfglint.rules import cl501_amp_optim_wrapper
from cfglint.rules.base import Example

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mmengine") is None, reason="needs the dryrun extra (MMEngine)"
)

BUILD_OPTIM_WRAPPER = """
import sys
import torch.nn as nn
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
cfg = Config.fromfile(sys.argv[1])
build_optim_wrapper(nn.Linear(2, 2), cfg.optim_wrapper)
"""


@pytest.mark.parametrize(
    "example",
    [example for example in cl501_amp_optim_wrapper.RULE.invalid if example.entry is None],
    ids=lambda example: example.config.splitlines()[-1][:60],
)
def test_cl501_invalid_examples_fail_in_mmengine_with_the_quoted_assertion(
    tmp_path: Path, example: Example
) -> None:
    """The plain name, the name with its registry's scope, and the class a lazy-import config
    imports: each builds MMEngine's AmpOptimWrapper, which asserts on a CPU host."""
    config = tmp_path / "config.py"
    config.write_text(example.config, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-c", BUILD_OPTIM_WRAPPER, str(config)],
        capture_output=True,
        text=True,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
        timeout=300,
    )
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr.splitlines()[-1] == cl501_amp_optim_wrapper.ASSERTION


def test_cl501_page_quotes_the_assertion() -> None:
    page = (REPO_ROOT / "docs" / "rules" / "CL501.md").read_text(encoding="utf-8")
    assert cl501_amp_optim_wrapper.ASSERTION in page
