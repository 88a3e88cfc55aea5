"""A launch check against the check of the config alone, side by side in one run.

    .venv/bin/python benchmarks/bench_launch.py [--repeat 5]

On real corpus configs (mmdet, mmseg, mmpretrain) and their packages' real `tools/train.py`:
(a) `cfglint check --target t20-gcu CONFIG`, (b) the same with `--entry tools/train.py
--entry-args "--launcher pytorch --amp --cfg-options ..."`. Each is timed two ways, interleaved so
that a slow spell of the machine hits both: the command itself inside one interpreter (imports
excluded; a fresh interpreter per run, so no cache is warm), and the whole process. Prints the
best of `--repeat` and the ratio (b)/(a); the goal is at most 2x.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from corpus import ensure_corpus, subprocess_env

CASES = (
    ("mmdet", "retinanet/retinanet_r50_fpn_1x_coco.py"),
    ("mmseg", "pspnet/pspnet_r50-d8_4xb2-40k_cityscapes-512x1024.py"),
    ("mmpretrain", "resnet/resnet50_8xb32_in1k.py"),
)
ENTRY_ARGS = "--launcher pytorch --amp --cfg-options env_cfg.cudnn_benchmark=False"

# Runs in the child: the command's own time, imports excluded.
_DRIVER = """
import contextlib, io, json, os, sys, time
from cfglint.cli import main
os.chdir(sys.argv[1])
start = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[2:])
print(json.dumps({"seconds": time.perf_counter() - start, "exit": code}))
"""


def _inside(cwd: Path, argv: list[str], env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(cwd), *argv],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return float(result["seconds"])


def _whole(cwd: Path, argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "cfglint", *argv], cwd=cwd, env=env, capture_output=True, check=False
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    corpus = ensure_corpus()
    env = subprocess_env(corpus)
    header = f"{'config':<58} {'alone':>8} {'launch':>8} {'ratio':>6}"
    print(f"{header}   whole process: alone launch ratio")
    worst = 0.0
    for package, config in CASES:
        root = corpus.site / package / ".mim"
        alone = ["check", "--target", "t20-gcu", f"configs/{config}"]
        launch = [
            "check",
            "--target",
            "t20-gcu",
            "--entry",
            "tools/train.py",
            "--entry-args",
            ENTRY_ARGS,
            f"configs/{config}",
        ]
        times: dict[str, list[float]] = {"a": [], "b": [], "wa": [], "wb": []}
        for _ in range(options.repeat):
            times["a"].append(_inside(root, alone, env))
            times["b"].append(_inside(root, launch, env))
            times["wa"].append(_whole(root, alone, env))
            times["wb"].append(_whole(root, launch, env))
        a, b = min(times["a"]), min(times["b"])
        wa, wb = min(times["wa"]), min(times["wb"])
        worst = max(worst, b / a)
        print(
            f"{package + '/' + config:<58} {a * 1000:>6.0f}ms {b * 1000:>6.0f}ms {b / a:>5.2f}x"
            f"   {wa:.2f}s {wb:.2f}s {wb / wa:.2f}x"
        )
    print(f"worst ratio (command itself): {worst:.2f}x (goal: at most 2x)")


if __name__ == "__main__":
    main()
