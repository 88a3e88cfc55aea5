"""Time and memory of every hostile-input case (tests/hostile/cases/), command by command.

``python benchmarks/bench_hostile.py [-k TEXT] [--markdown]``

Each case is built in a fresh folder and each of its commands (check, fix twice, show, the
report formats) runs as its own process, as a user would run it, under the red team's limits
(4 GB of address space, 60 s). For each command: its wall time, its CPU time and its own peak
resident memory (``wait4``, so no other process counts), and whether what the case expects
holds. Exits 1 when any command takes 300 MB or more, 10 s or more, or does not do what the
case says. The numbers in docs/benchmarks.md ("Hostile input") come from this script.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hostile_cases import (
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only the cases whose name holds this text")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    rows: list[tuple[str, str, int, float, float, float, str]] = []
    failed = False
    for case in load_cases():
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
                if outcome.max_rss_mb >= MAX_RSS_MB or outcome.wall_s >= MAX_WALL_S:
                    found.append("over budget")
                verdict = "ok" if not found else "; ".join(found)
                failed = failed or bool(found)
                shown = " ".join(run.args)
                if run.hook:
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
