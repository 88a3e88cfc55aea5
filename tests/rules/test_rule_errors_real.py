"""A rule page's quoted error is the one real MMEngine raises for the rule's INVALID example.

Run on this machine's CPU-only PyTorch, in a subprocess, with CUDA hidden as on a `cpu` host.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from helpers import REPO_ROOT

from cfglint.rules import cl501_amp_optim_wrapper
from cfglint.rules.base import Example

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mmengine") is None, reason="needs the dryrun extra (MMEngine)"
)

# One interpreter imports torch and MMEngine once (seconds), then builds each config's optim
# wrapper in a fork of itself: each build starts from that same state, as a fresh
# `python -c` of its own would after its imports, and what it raises goes through the
# interpreter's own uncaught-exception handling (the traceback on stderr, exit code 1).
BUILD_OPTIM_WRAPPERS = """
import json
import os
import sys
import torch.nn as nn
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
ended = {}
for path in sys.argv[1:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.dup2(write, 2)
        cfg = Config.fromfile(path)
        build_optim_wrapper(nn.Linear(2, 2), cfg.optim_wrapper)
        raise SystemExit(0)
    os.close(write)
    with os.fdopen(read, encoding="utf-8", errors="replace") as stderr:
        said = stderr.read()
    ended[path] = (os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), said)
print(json.dumps(ended))
"""

EXAMPLES = [example for example in cl501_amp_optim_wrapper.RULE.invalid if example.entry is None]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """Each example's config -> the exit code and stderr of building its optim wrapper."""
    folder = tmp_path_factory.mktemp("cl501")
    paths = []
    for number, example in enumerate(EXAMPLES):
        config = folder / f"config{number}.py"
        config.write_text(example.config, encoding="utf-8")
        paths.append(str(config))
    completed = subprocess.run(
        [sys.executable, "-c", BUILD_OPTIM_WRAPPERS, *paths],
        capture_output=True,
        text=True,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": ""},
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    ended = json.loads(completed.stdout)
    return {
        example.config: (ended[path][0], ended[path][1])
        for example, path in zip(EXAMPLES, paths, strict=True)
    }


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=lambda example: example.config.splitlines()[-1][:60]
)
def test_cl501_invalid_examples_fail_in_mmengine_with_the_quoted_assertion(
    built: dict[str, tuple[int, str]], example: Example
) -> None:
    """The plain name, the name with its registry's scope, and the class a lazy-import config
    imports: each builds MMEngine's AmpOptimWrapper, which asserts on a CPU host."""
    exit_code, stderr = built[example.config]
    assert exit_code == 1, stderr
    assert stderr.splitlines()[-1] == cl501_amp_optim_wrapper.ASSERTION


def test_cl501_page_quotes_the_assertion() -> None:
    page = (REPO_ROOT / "docs" / "rules" / "CL501.md").read_text(encoding="utf-8")
    assert cl501_amp_optim_wrapper.ASSERTION in page
