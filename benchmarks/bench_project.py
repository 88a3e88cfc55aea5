"""Who-inherits-a-file benchmark on a synthetic project: loads and wall time of one command.

    .venv/bin/python benchmarks/bench_project.py [--bases 20] [--per-base 100] [--repeat 3]

Writes a project under a temporary folder: `--bases` files `configs/_base_/runtime_N.py`
(each with a `dist_cfg` backend the t20-gcu target rejects), and `--per-base` configs
`configs/gN/cM.py` inheriting each, under a `pyproject.toml` with `default-target = 't20-gcu'`.
Then, each in a fresh interpreter and on a fresh copy of the project, with one leaf named
(`configs/g0/c0.py`): `check`, `check --output-format json`, `fix`. Prints, per command, the
number of `Loader.load` calls (and of those the Loader had not resolved before: the others come
from its memo) and the wall time of the command itself (imports excluded), best of `--repeat`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RUNTIME = (
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
SETTINGS = "[tool.cfglint]\ndefault-target = 't20-gcu'\n"
LEAF = "configs/g0/c0.py"
COMMANDS = {
    "check": ["check", LEAF],
    "check --output-format json": ["check", "--output-format", "json", LEAF],
    "fix": ["fix", LEAF],
}

# Runs in the child: counts Loader.load calls around one command line.
_DRIVER = """
import contextlib, io, json, os, sys, time
from pathlib import Path
from cfglint.loader import Loader
from cfglint.cli import main
calls = resolved = 0
original = Loader.load
def counting(self, path):
    global calls, resolved
    calls += 1
    # A config this Loader has not resolved yet (the others come from its memo).
    resolved += Path(os.path.abspath(path)) not in getattr(self, "_memo", {})
    return original(self, path)
Loader.load = counting
os.chdir(sys.argv[1])
out = io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[2:])
seconds = time.perf_counter() - start
print(json.dumps({"loads": calls, "resolved": resolved, "seconds": seconds, "exit": code}))
"""


def write_project(root: Path, bases: int, per_base: int) -> None:
    (root / "pyproject.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    base_folder = root / "configs" / "_base_"
    base_folder.mkdir(parents=True)
    for base in range(bases):
        (base_folder / f"runtime_{base}.py").write_text(RUNTIME, encoding="utf-8")
        group = root / "configs" / f"g{base}"
        group.mkdir()
        for number in range(per_base):
            (group / f"c{number}.py").write_text(
                f"_base_ = '../_base_/runtime_{base}.py'\nmodel = dict(type='M{number}')\n",
                encoding="utf-8",
            )


def run_once(template: Path, argv: list[str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        shutil.copytree(template, project)
        completed = subprocess.run(
            [sys.executable, "-c", _DRIVER, str(project), *argv],
            capture_output=True,
            text=True,
            check=True,
        )
    result = json.loads(completed.stdout)
    assert isinstance(result, dict)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=20)
    parser.add_argument("--per-base", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        template = Path(folder) / "template"
        write_project(template, args.bases, args.per_base)
        print(f"{args.bases} bases x {args.per_base} configs, {LEAF} named")
        for name, argv in COMMANDS.items():
            runs = [run_once(template, argv) for _ in range(args.repeat)]
            best = min(float(str(run["seconds"])) for run in runs)
            loads = {(run["loads"], run["resolved"]) for run in runs}
            exits = {run["exit"] for run in runs}
            counts = ", ".join(f"{calls} ({fresh} resolved)" for calls, fresh in sorted(loads))
            print(f"{name:28} loads {counts}  exit {sorted(exits)}  best {best:.2f} s")


if __name__ == "__main__":
    main()
