"""Speed of whole `cfglint` processes on the real corpus, side by side in one run.

    .venv/bin/python benchmarks/bench_speed.py [--repeat 3] [--fromfile-limit 200]
        [--baseline CHECKOUT]

Copies the three packages' `.mim/configs` trees into one temporary project (`pyproject.toml`
with `[tool.cfglint]`; `pkg::` bases still resolve from the cached wheels, which stay
untouched), dates every file a minute back (as a project's files are: a file written in the
last two seconds is always read again, never trusted by its stamp) and times, each as a whole
process (interpreter start included), best of `--repeat`:

- the floor: `ast.parse` of every `.py` file of the tree once, in one process;
- MMEngine's `Config.fromfile` over every leaf, in one process (`--fromfile-limit N` times about
  N leaves spread evenly over the corpus and scales; 0 times them all);
- `cfglint check --no-cache` over the three trees (cold), with the worker processes cfglint
  starts (one per core no other process is running on), in one process (`CFGLINT_WORKERS=1`)
  and with two workers (`CFGLINT_WORKERS=2`);
- the same cold check with a SARIF report, which carries every fix's edits (fix placement and
  libcst's parse of each file edited);
- the same command again, replayed from the result cache;
- the same command after editing a base that hundreds of configs inherit;
- the same command after editing one leaf (the whole tree named, one config changed);
- a pre-commit style run: one leaf edited, then `cfglint check --force-exclude LEAF` from the
  project root;
- `cfglint --version`;

with each one's peak memory (wait4's max RSS: the largest of the process and its workers), the
ratios the goals are stated in, and `python -X importtime` totals for `--version`, a cached
check and the pre-commit run.

`--baseline CHECKOUT` runs the same commands with another checkout of cfglint (the code
before a change, e.g. `git archive` of `main` unpacked somewhere) on `PYTHONPATH`, interleaved
with this one's (each with its own cache folder), so that a slow spell of a shared machine
weighs on both.
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

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_BASE = "mmdet/configs/_base_/default_runtime.py"
# A leaf no other config names (faster-rcnn_r50_fpn_1x_coco.py, say, is a base of 57).
LEAF = "mmdet/configs/faster_rcnn/faster-rcnn_r50_fpn_ciou_1x_coco.py"
CHECK = ["check", "--statistics", "mmdet", "mmseg", "mmpretrain"]
# A report that carries every fix's edits (what CI and the review bot read).
SARIF = ["check", "--no-cache", "--output-format", "sarif", "mmdet", "mmseg", "mmpretrain"]
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


@dataclass(frozen=True)
class Code:
    """A checkout of cfglint, run with its own cache folder."""

    label: str
    root: Path
    cache: Path

    def command(self, *arguments: str) -> list[str]:
        return [sys.executable, "-m", "cfglint", *arguments]

    def env(self, base: dict[str, str], **extra: str) -> dict[str, str]:
        paths = [str(self.root), base.get("PYTHONPATH", "")]
        return {
            **base,
            "PYTHONPATH": os.pathsep.join(filter(None, paths)),
            "CFGLINT_CACHE_DIR": str(self.cache),
            **extra,
        }


def timed(command: Sequence[str], cwd: Path, env: dict[str, str]) -> Timing:
    """One whole process: wall time from spawn to exit, and its peak RSS (wait4's rusage,
    which also covers the worker processes it waited for)."""
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


def best(timings: Sequence[Timing]) -> Timing:
    return min(timings, key=lambda timing: timing.seconds)


def copy_tree(site: Path, into: Path) -> None:
    for package in ("mmdet", "mmseg", "mmpretrain"):
        shutil.copytree(site / package / ".mim" / "configs", into / package / "configs")
    (into / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "t20-gcu"\n', encoding="utf-8"
    )
    a_minute_ago = time.time() - 60
    for path in into.rglob("*"):
        os.utime(path, (a_minute_ago, a_minute_ago))


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def import_total(command: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """`python -X importtime`: the summed self time of every import (s) and their count."""
    completed = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
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


class Runs:
    """The timings of each scenario for each checkout, taken round by round."""

    def __init__(self, codes: Sequence[Code], tree: Path, env: dict[str, str]) -> None:
        self.codes = codes
        self.tree = tree
        self.env = env
        self.timings: dict[tuple[str, str], list[Timing]] = {}

    def run(
        self,
        scenario: str,
        arguments: Sequence[str],
        before: Callable[[], None] | None = None,
        **extra: str,
    ) -> None:
        """One round: the edit (once, seen by every checkout), then each checkout's run."""
        if before is not None:
            before()
        for code in self.codes:
            timing = timed(code.command(*arguments), self.tree, code.env(self.env, **extra))
            self.timings.setdefault((scenario, code.label), []).append(timing)

    def best(self, scenario: str, label: str) -> Timing:
        return best(self.timings[(scenario, label)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fromfile-limit", type=int, default=200, help="0: time every leaf")
    parser.add_argument("--baseline", type=Path, help="another checkout to run side by side")
    args = parser.parse_args()
    info = ensure_corpus()
    env = subprocess_env(info)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cfglint-speed-") as folder:
        codes = [Code("this", REPO_ROOT, Path(folder) / "cache-this")]
        if args.baseline is not None:
            codes.insert(0, Code("baseline", args.baseline.resolve(), Path(folder) / "cache-base"))
        for code in codes:  # an installed cfglint has its byte code; a checkout may not
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(code.root / "cfglint")], check=True
            )
        tree = Path(folder) / "project"
        copy_tree(info.site, tree)
        leaves = sorted(
            path
            for package in ("mmdet", "mmseg", "mmpretrain")
            for path in (tree / package / "configs").rglob("*.py")
            if "_base_" not in path.relative_to(tree / package / "configs").parts
        )
        runs = Runs(codes, tree, env)
        floor: list[Timing] = []
        for _ in range(args.repeat):  # the floor in each round too: a busy spell weighs on both
            floor.append(timed([sys.executable, "-c", _PARSE_ALL, str(tree)], tree, env))
            runs.run("cold", [*CHECK, "--no-cache"])
            runs.run("cold, one process", [*CHECK, "--no-cache"], CFGLINT_WORKERS="1")
            runs.run("cold, two workers", [*CHECK, "--no-cache"], CFGLINT_WORKERS="2")
            runs.run("cold, SARIF", SARIF)
        runs.run("fill", CHECK)
        for index in range(args.repeat):
            runs.run("cached", CHECK)
            runs.run("base edited", CHECK, lambda i=index: append(tree / SHARED_BASE, f"# b{i}\n"))
            runs.run("leaf edited", CHECK, lambda i=index: append(tree / LEAF, f"# l{i}\n"))
            runs.run(
                "pre-commit",
                ["check", "--force-exclude", LEAF],
                lambda i=index: append(tree / LEAF, f"# p{i}\n"),
            )
            runs.run("version", ["--version"])
        naming = sum("default_runtime.py" in leaf.read_text(encoding="utf-8") for leaf in leaves)
        imports: dict[tuple[str, str], tuple[float, int]] = {}
        runs.run("fill", CHECK)
        for code in codes:
            imports[("--version", code.label)] = import_total(
                code.command("--version"), tree, code.env(env)
            )
            imports[("cached check", code.label)] = import_total(
                code.command(*CHECK), tree, code.env(env)
            )
        for code in codes:
            append(tree / LEAF, "# imports\n")
            imports[("pre-commit", code.label)] = import_total(
                code.command("check", "--force-exclude", LEAF), tree, code.env(env)
            )

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

    report(runs, best(floor), fromfile, len(timed_sample), fromfile_failed, imports)
    print(
        f"corpus: {len(leaves)} leaf configs ({naming} name the edited base); "
        f"{len(os.sched_getaffinity(0))} CPUs; load average before: "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; best of {args.repeat}"
    )


def report(
    runs: Runs,
    floor: Timing,
    fromfile: float,
    fromfile_timed: int,
    fromfile_failed: int,
    imports: dict[tuple[str, str], tuple[float, int]],
) -> None:
    labels = [code.label for code in runs.codes]
    this = labels[-1]
    cold = runs.best("cold", this).seconds
    goals = {
        "cold": f"{cold / floor.seconds:.2f}x floor (goal <= 2x); "
        f"{fromfile / cold:.1f}x faster than Config.fromfile (goal >= 25x)",
        "cold, one process": f"{runs.best('cold, one process', this).seconds / floor.seconds:.2f}x"
        " floor",
        "cold, two workers": f"{runs.best('cold, two workers', this).seconds / floor.seconds:.2f}x"
        " floor",
        "cold, SARIF": f"{runs.best('cold, SARIF', this).seconds / cold:.2f}x cold",
        "cached": "goal < 0.3 s",
        "base edited": f"{runs.best('base edited', this).seconds / cold:.2f}x cold",
        "leaf edited": f"{runs.best('leaf edited', this).seconds / cold:.2f}x cold",
        "pre-commit": "goal < 0.3 s",
        "version": "goal < 0.15 s",
    }
    names = {
        "cold": "check --no-cache (cold; workers as cfglint picks)",
        "cold, one process": "check --no-cache, CFGLINT_WORKERS=1",
        "cold, two workers": "check --no-cache, CFGLINT_WORKERS=2",
        "cold, SARIF": "check --no-cache --output-format sarif",
        "cached": "check, cached (replayed)",
        "base edited": "check after editing the shared base",
        "leaf edited": "check after editing one leaf",
        "pre-commit": "pre-commit: check --force-exclude LEAF (edited)",
        "version": "--version",
    }
    header = "".join(f"{label:>20}" for label in labels)
    print(f"{'run':48}{header}  (wall, peak RSS of the largest process)")
    print(f"{'ast.parse of every .py file (the floor)':48}{_cell(floor):>20}")
    print(
        f"{f'Config.fromfile loop ({fromfile_timed} timed, {fromfile_failed} failed)':48}"
        f"{f'{fromfile:.1f} s (scaled)':>20}"
    )
    for scenario, name in names.items():
        cells = "".join(f"{_cell(runs.best(scenario, label)):>20}" for label in labels)
        print(f"{name:48}{cells}  {goals[scenario]}")
    for name in ("--version", "cached check", "pre-commit"):
        cells = "".join(
            f"{f'{imports[(name, label)][0]:.3f} s, {imports[(name, label)][1]}':>20}"
            for label in labels
        )
        print(f"{f'-X importtime: {name} (s, modules)':48}{cells}")


def _cell(timing: Timing) -> str:
    return f"{timing.seconds:.2f} s {timing.peak_mb:.0f} MB"


if __name__ == "__main__":
    main()
