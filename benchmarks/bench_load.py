"""Loader benchmark on the real corpus: cfglint vs ``Config.fromfile`` vs bare ``ast.parse``.

    .venv/bin/python benchmarks/bench_load.py [--repeat 3] [--fromfile-limit N]

(a) resolve every leaf config with a fresh cfglint Loader, (b) a loop of MMEngine's
``Config.fromfile(path, import_custom_modules=False)`` over the same leaves (in a subprocess, one
process, so the numbers compare), (c) ``ast.parse`` of every ``.py`` file of the corpus once.
Best of ``--repeat`` interleaved runs for (a) and (c). Goals: (a) >= 20x faster than (b),
within 3x of (c).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import time
from pathlib import Path

from corpus import CorpusInfo, ensure_corpus, findable_packages, subprocess_env

_FROMFILE_LOOP = """
import json, sys, time, warnings, logging
warnings.simplefilter('ignore'); logging.disable(logging.CRITICAL)
from mmengine.config import Config
paths = json.loads(sys.stdin.read())
failed = 0
start = time.perf_counter()
for path in paths:
    try:
        Config.fromfile(path, import_custom_modules=False)
    except Exception:
        failed += 1
print(json.dumps({"seconds": time.perf_counter() - start, "failed": failed}))
"""


def time_cfglint(info: CorpusInfo) -> tuple[float, int]:
    from cfglint.loader import Loader
    from cfglint.types import LoadFailure

    with findable_packages(info):
        start = time.perf_counter()
        loader = Loader(environ={})
        failures = sum(isinstance(loader.load(path), LoadFailure) for path in info.leaves)
        return time.perf_counter() - start, failures


def time_parse(info: CorpusInfo) -> tuple[float, int]:
    files = sorted(path for root in info.config_roots for path in root.rglob("*.py"))
    start = time.perf_counter()
    for path in files:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return time.perf_counter() - start, len(files)


def time_fromfile(info: CorpusInfo, paths: list[Path]) -> tuple[float, int]:
    completed = subprocess.run(
        [sys.executable, "-c", _FROMFILE_LOOP],
        input=json.dumps([str(path) for path in paths]),
        capture_output=True,
        text=True,
        check=True,
        env=subprocess_env(info),
    )
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    return float(result["seconds"]), int(result["failed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fromfile-limit", type=int, default=0, help="time only N leaves for (b)")
    args = parser.parse_args()
    info = ensure_corpus()
    leaves = list(info.leaves)
    # Interleaved, so that a slow spell of a shared machine weighs on (a) and (c) alike.
    cfglint_runs, parse_runs = [], []
    for _ in range(args.repeat):
        cfglint_runs.append(time_cfglint(info))
        parse_runs.append(time_parse(info))
    cfglint_s, failures = min(cfglint_runs)
    parse_s, parsed = min(parse_runs)
    sample = leaves[: args.fromfile_limit] if args.fromfile_limit else leaves
    fromfile_s, fromfile_failed = time_fromfile(info, sample)
    fromfile_all = fromfile_s * len(leaves) / len(sample)
    print(f"corpus: {len(leaves)} leaf configs, {parsed} .py files ({info.site})")
    print(f"(a) cfglint Loader, all leaves:      {cfglint_s:8.2f} s  ({failures} not resolved)")
    print(
        f"(b) Config.fromfile loop:            {fromfile_all:8.2f} s  "
        f"({len(sample)} timed, {fromfile_failed} failed)"
    )
    print(f"(c) ast.parse of every file once:    {parse_s:8.2f} s")
    print(f"(b)/(a) speed-up over MMEngine:      {fromfile_all / cfglint_s:8.1f}x  (goal >= 20x)")
    print(f"(a)/(c) cost relative to parsing:    {cfglint_s / parse_s:8.1f}x  (goal <= 3x)")


if __name__ == "__main__":
    main()
