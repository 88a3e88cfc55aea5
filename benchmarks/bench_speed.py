"""Speed of whole `cfglint` processes on the real corpus, side by side in one run.

    .venv/bin/python benchmarks/bench_speed.py [--repeat 3] [--fromfile-limit 200]

Copies the three packages' `.mim/configs` trees into one temporary project (`pyproject.toml`
with `[tool.cfglint]`; `pkg::` bases still resolve from the cached wheels, which stay
untouched) and times, each as a whole process (interpreter start included), best of
`--repeat`:

- the floor: `ast.parse` of every `.py` file of the tree once;
- MMEngine's `Config.fromfile` over every leaf, in one process (`--fromfile-limit N` times about
  N leaves spread evenly over the corpus and scales; 0 times them all);
- `cfglint check --no-cache` over the three trees (cold);
- the same command again, replayed from the cache;
- the same command after editing one base that hundreds of configs inherit;
- a pre-commit style run: one leaf edited, then `cfglint check --force-exclude LEAF` from the
  project root;
- `cfglint --version`;

with each one's peak memory (the process's max RSS), the ratios the goals are stated in, and
`python -X importtime` totals for `--version` and for a cached check.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_load import time_fromfile
from corpus import ensure_corpus, subprocess_env

CFGLINT = [sys.executable, "-m", "cfglint"]
SHARED_BASE = "mmdet/configs/_base_/default_runtime.py"
# A leaf no other config names (faster-rcnn_r50_fpn_1x_coco.py, say, is a base of 57).
LEAF = "mmdet/configs/faster_rcnn/faster-rcnn_r50_fpn_ciou_1x_coco.py"
CHECK = ["check", "--statistics", "mmdet", "mmseg", "mmpretrain"]
_PARSE_ALL = """
import ast, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    ast.parse(path.read_bytes(), filename=str(path))
"""


@dataclass(frozen=True)
class Timing:
    seconds: float
    peak_mb: float
    exit_code: int


def timed(command: Sequence[str], cwd: Path, env: dict[str, str]) -> Timing:
    """One whole process: wall time from spawn to exit, and its peak RSS (wait4's rusage)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    exit_code = os.waitstatus_to_exitcode(status)
    process.returncode = exit_code
    # 0, 1 (findings) or 2 for the corpus's 10 configs MMEngine cannot load either (CL903/CL905)
    # are results; anything else means the command did not do what is being timed.
    if exit_code not in (0, 1, 2):
        raise SystemExit(f"{' '.join(command)}: exit code {exit_code}")
    return Timing(seconds, usage.ru_maxrss / 1024, exit_code)


def best(runs: int, once: Callable[[int], Timing]) -> Timing:
    timings = [once(index) for index in range(runs)]
    return min(timings, key=lambda timing: timing.seconds)


def copy_tree(site: Path, into: Path) -> None:
    for package in ("mmdet", "mmseg", "mmpretrain"):
        shutil.copytree(site / package / ".mim" / "configs", into / package / "configs")
    (into / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "t20-gcu"\n', encoding="utf-8"
    )


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def import_total(arguments: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """`python -X importtime`: the summed self time of every import (s) and their count."""
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cfglint", *arguments],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    total = count = 0
    for line in completed.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            total += int(line.split(":", 1)[1].split("|")[0])
            count += 1
    return total / 1e6, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fromfile-limit", type=int, default=200, help="0: time every leaf")
    args = parser.parse_args()
    info = ensure_corpus()
    env = subprocess_env(info)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cfglint-speed-") as folder:
        tree = Path(folder) / "project"
        copy_tree(info.site, tree)
        leaves = sorted(
            path
            for package in ("mmdet", "mmseg", "mmpretrain")
            for path in (tree / package / "configs").rglob("*.py")
            if "_base_" not in path.relative_to(tree / package / "configs").parts
        )
        repeat = args.repeat

        floor = best(
            repeat, lambda _i: timed([sys.executable, "-c", _PARSE_ALL, str(tree)], tree, env)
        )
        cold = best(repeat, lambda _i: timed([*CFGLINT, *CHECK, "--no-cache"], tree, env))
        timed([*CFGLINT, *CHECK], tree, env)  # fills the cache
        cached = best(repeat, lambda _i: timed([*CFGLINT, *CHECK], tree, env))
        cached_imports = import_total(CHECK, tree, env)

        def after_base_edit(index: int) -> Timing:
            append(tree / SHARED_BASE, f"# edited {index}\n")
            return timed([*CFGLINT, *CHECK], tree, env)

        touched = best(repeat, after_base_edit)
        naming = sum("default_runtime.py" in leaf.read_text(encoding="utf-8") for leaf in leaves)

        def pre_commit(index: int) -> Timing:
            append(tree / LEAF, f"# edited {index}\n")
            return timed([*CFGLINT, "check", "--force-exclude", LEAF], tree, env)

        hook = best(repeat, pre_commit)
        version = best(repeat, lambda _i: timed([*CFGLINT, "--version"], tree, env))
        version_imports = import_total(["--version"], tree, env)

        # MMEngine reads the same leaves where the wheels put them (`pkg::` needs no copy).
        sample = [
            info.site / rel.parts[0] / ".mim" / Path(*rel.parts[1:])
            for rel in (leaf.relative_to(tree) for leaf in leaves)
        ]
        # Spread over the three packages (the first leaves alone are mmdet's, slower than most).
        step = max(1, len(sample) // args.fromfile_limit) if args.fromfile_limit else 1
        timed_sample = sample[::step]
        fromfile_s, fromfile_failed = time_fromfile(info, timed_sample)
        fromfile = fromfile_s * len(sample) / len(timed_sample)

    cpus = os.cpu_count()
    print(
        f"corpus: {len(leaves)} leaf configs; {cpus} CPUs; load average before: "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; best of {repeat}"
    )
    print(f"{'run':58} {'wall':>8} {'peak RSS':>9}  ratio")
    rows = [
        ("ast.parse of every .py file (the floor)", floor, ""),
        (
            f"Config.fromfile loop ({len(timed_sample)} timed, {fromfile_failed} failed, scaled)",
            Timing(fromfile, float("nan"), 0),
            f"{fromfile / cold.seconds:.1f}x cold cfglint (goal >= 25x)",
        ),
        (
            "cfglint check --no-cache (cold)",
            cold,
            f"{cold.seconds / floor.seconds:.2f}x floor (goal <= 2x)",
        ),
        ("cfglint check, cached", cached, "goal < 0.3 s"),
        (
            f"cfglint check after editing a base ({naming} leaves name it)",
            touched,
            f"{touched.seconds / cold.seconds:.2f}x cold",
        ),
        ("pre-commit: 1 leaf edited, check --force-exclude LEAF", hook, "goal < 0.3 s"),
        ("cfglint --version", version, "goal < 0.15 s"),
    ]
    for name, timing, ratio in rows:
        peak = "" if timing.peak_mb != timing.peak_mb else f"{timing.peak_mb:6.0f} MB"
        print(f"{name:58} {timing.seconds:7.2f}s {peak:>9}  {ratio}")
    print(
        f"python -X importtime: --version {version_imports[0]:.3f} s in {version_imports[1]} "
        f"imports; cached check {cached_imports[0]:.3f} s in {cached_imports[1]} imports"
    )


if __name__ == "__main__":
    main()
