"""Time and memory of every hostile-input case (tests/hostile/cases/), command by command.

``python benchmarks/bench_hostile.py [-k TEXT] [--markdown] [--sizes]``

Each case is built in a fresh folder and each of its commands (check, fix twice, show, the
report formats) runs as its own process, as a user would run it, under the red team's limits
(4 GB of address space, 60 s). For each command: its wall time, its CPU time and its own peak
resident memory (``wait4``, so no other process counts), and whether what the case expects
holds. Exits 1 when any command takes 300 MB or more, 10 s or more, or does not do what the
case says. The numbers in docs/benchmarks.md ("Hostile input") come from this script.

``--sizes`` measures instead what chose the size limits: `check` and `fix` of the densest
content of each kind (a flat list of zeros, many small statements; .py, YAML, JSON) at sizes
around the limits, with the limits lifted for the measurement (tests/hostile/hook_cli.py).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hostile_cases import (
    Case,
    Run,
    build,
    can_drop_privileges,
    execute,
    load_cases,
    problems,
    snapshot,
    teardown,
)

MAX_RSS_MB = 300.0
MAX_WALL_S = 10.0
RED_TEAM_MEMORY = 4 * 1024**3


HEAD = "model = dict(type='X')\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n"
YAML_HEAD = "model: {type: X}\nenv_cfg: {dist_cfg: {backend: nccl}}\n"
# kind -> (file name, generate spec without the size, the largest size `fix` is timed at)
KINDS: dict[str, tuple[str, dict[str, str], int]] = {
    "py, flat list": ("a.py", {"head": HEAD + "x = [0", "line": ",0", "tail": "]\n"}, 128),
    "py, statements": (
        "a.py",
        {"head": HEAD, "line": "v{i} = dict(a={i}, b='x{i}', c=[1, 2, 3])\n"},
        128,
    ),
    "yaml, flat list": ("a.yaml", {"head": YAML_HEAD + "x: [0", "line": ",0", "tail": "]\n"}, 64),
    "json, flat list": (
        "a.json",
        {
            "head": '{"model": {"type": "X"}, '
            '"env_cfg": {"dist_cfg": {"backend": "nccl"}}, "x": [0',
            "line": ",0",
            "tail": "]}\n",
        },
        128,
    ),
}
SIZES_KB = (24, 48, 64, 128, 256)


def size_cases(empty: Path) -> list[Case]:
    """One case per kind and size: `check`, then `fix` (where not too slow to measure), with
    the limits lifted to 10 MB."""
    cases = []
    for kind, (name, spec, fix_up_to) in KINDS.items():
        for size in SIZES_KB:
            generate = {name: {**spec, "size": size * 1024 - 8}}
            hook = f"raise-limits:{10 * 1024 * 1024}"
            runs = [Run(("check", "--target", "t20-gcu", name), hook=hook, timeout=120)]
            if size <= fix_up_to:
                runs.append(Run(("fix", "--target", "t20-gcu", name), hook=hook, timeout=120))
            label = f"{kind}, {size} KB"
            cases.append(Case(label, empty, label, tuple(runs), {"generate": generate}))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only the cases whose name holds this text")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--sizes", action="store_true", help="measure what chose the limits")
    args = parser.parse_args()
    rows: list[tuple[str, str, int, float, float, float, str]] = []
    failed = False
    empty = Path(tempfile.mkdtemp(prefix="cfglint-bench-empty-"))
    cases = size_cases(empty) if args.sizes else load_cases()
    for case in cases:
        if args.k not in case.name:
            continue
        if case.drop_privileges and not can_drop_privileges():
            print(f"skipped {case.name}: needs setpriv", file=sys.stderr)
            continue
        folder = Path(tempfile.mkdtemp(prefix="cfglint-bench-"))
        root = folder / "project"
        root.mkdir()
        try:
            build(case, root)
            for run in case.runs:
                before = snapshot(root)
                outcome = execute(case, run, root, memory_limit=RED_TEAM_MEMORY)
                found = problems(case, run, root, before, outcome)
                if args.sizes:
                    found = []  # a measurement: beyond the limits is expected to cost more
                elif outcome.max_rss_mb >= MAX_RSS_MB or outcome.wall_s >= MAX_WALL_S:
                    found.append("over budget")
                verdict = "ok" if not found else "; ".join(found)
                failed = failed or bool(found)
                shown = " ".join(run.args)
                if run.hook and not args.sizes:
                    shown += f"  [{run.hook.partition(':')[0]}]"
                rows.append(
                    (
                        case.name,
                        shown if len(shown) <= 60 else shown[:57] + "...",
                        outcome.exit_code,
                        outcome.wall_s,
                        outcome.cpu_s,
                        outcome.max_rss_mb,
                        verdict,
                    )
                )
        finally:
            teardown(case, root)
            shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(empty, ignore_errors=True)
    _print(rows, args.markdown)
    worst_rss = max((row[5] for row in rows), default=0.0)
    worst_wall = max((row[3] for row in rows), default=0.0)
    print(
        f"\n{len(rows)} commands; worst peak RSS {worst_rss:.0f} MB (budget {MAX_RSS_MB:.0f}), "
        f"worst wall time {worst_wall:.2f} s (budget {MAX_WALL_S:.0f})"
    )
    return 1 if failed else 0


def _print(rows: list[tuple[str, str, int, float, float, float, str]], markdown: bool) -> None:
    header = ("case", "command", "exit", "wall s", "cpu s", "RSS MB", "verdict")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for case, shown, code, wall, cpu, rss, verdict in rows:
            print(
                f"| {case} | `{shown}` | {code} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {verdict} |"
            )
        return
    print(f"{'case':<28} {'command':<60} {'exit':>4} {'wall s':>7} {'cpu s':>6} {'RSS MB':>6}  ok")
    for case, shown, code, wall, cpu, rss, verdict in rows:
        print(f"{case:<28} {shown:<60} {code:>4} {wall:>7.2f} {cpu:>6.2f} {rss:>6.0f}  {verdict}")


if __name__ == "__main__":
    sys.exit(main())
