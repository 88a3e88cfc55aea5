"""`cfglint dryrun CONFIG`: build the model and wrap it as MMEngine's Runner would, on N ranks."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from cfglint.cli import progress
from cfglint.dryrun.launch import Launcher
from cfglint.errors import UserError

MAX_WORLD_SIZE = 64
MAX_TIMEOUT_S = 86400.0  # a day: a dry run that needs longer is hung
# No --launcher: the process group exists before the Runner, as the recommended entry point does.
LAUNCHERS: dict[str | None, Launcher] = {None: "entry-point", "pytorch": "pytorch", "none": "none"}


def _world_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_WORLD_SIZE:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_WORLD_SIZE}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds more than 0 and at most {MAX_TIMEOUT_S:.0f}"
        )
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "dryrun",
        help="build the model and run MMEngine's wrap code on N real ranks (executes the config)",
        description="Executes the config's code and its custom_imports. Needs the dryrun "
        "extra: pip install 'cfglint[dryrun]'.",
    )
    parser.add_argument("config", type=Path, metavar="CONFIG")
    parser.add_argument("--target", help="the target to judge devices against (beats settings)")
    parser.add_argument(
        "--world-size",
        type=_world_size,
        default=2,
        metavar="N",
        help="number of rank processes (default: 2)",
    )
    parser.add_argument(
        "--launcher",
        choices=("none", "pytorch"),
        default=None,
        help="pytorch: go through mmengine.dist.init_dist as Runner.setup_env "
        "does; none: not distributed; default: create the gloo process "
        "group first, as the recommended entry point does",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="S",
        help=f"kill ranks still running after S seconds (default: 300, at most "
        f"{MAX_TIMEOUT_S:.0f})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def _check_config(config: Path) -> None:
    if config.is_dir():
        raise UserError(f"{config}: is a directory, not a config file")
    if not config.is_file():
        raise UserError(f"{config}: no such config file")


def run(args: argparse.Namespace) -> int:
    from cfglint.dryrun import Stopped, TargetView, dry_run
    from cfglint.dryrun.extra import require_extra
    from cfglint.dryrun.render_json import render_json
    from cfglint.dryrun.render_text import render_text
    from cfglint.settings import target_name_for
    from cfglint.targets import load_target

    config: Path = args.config
    _check_config(config)
    target = load_target(target_name_for(config, args.target), config)
    view = TargetView.of(target)
    require_extra()
    print(
        f"cfglint dryrun: this executes {config} (Python code) and imports its "
        f"custom_imports, in {args.world_size} process(es)",
        file=sys.stderr,
    )
    launcher = LAUNCHERS[args.launcher]
    try:
        with progress.bar(
            not args.json, "dry run: ranks finished", "{task.completed}/{task.total}",
            args.world_size,
        ) as on_rank_done:
            report = dry_run(
                config,
                view,
                world_size=args.world_size,
                launcher=launcher,
                timeout_s=args.timeout,
                on_rank_done=on_rank_done,
            )
    except Stopped as stop:
        print(
            f"cfglint dryrun: stopped by {stop}: every rank was killed",
            file=sys.stderr,
        )
        return 128 + stop.signum
    sys.stdout.write(render_json(report) + "\n" if args.json else render_text(report))
    return report.exit_code
