"""`cfglint dryrun CONFIG`: build the model and wrap it as MMEngine's Runner would, on N ranks.

`cfglint dryrun --entry SCRIPT [-- ARGS...]`: run the user's own entry script on N ranks, with
the probe reporting its wraps and stopping each rank where training would start.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.cli import progress
from cfglint.dryrun.launch import Launcher
from cfglint.errors import UserError

if TYPE_CHECKING:
    from cfglint.dryrun import DryRunReport, TargetView
    from cfglint.targets import Target

# Runs the ranks, calling its argument (when not None) as each rank finishes.
_DryRun = Callable[[Callable[[object], None] | None], "DryRunReport"]

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


def _take_script_arguments(parser: argparse.ArgumentParser) -> None:
    """Everything after the first `--` is the entry script's, untouched: argparse itself would
    mix it with CONFIG and its handling of `--` differs between Python versions."""
    parse_known_args = parser.parse_known_args

    def split_then_parse(
        args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        words = list(sys.argv[1:] if args is None else args)
        script_args: list[str] | None = None
        if "--" in words:
            cut = words.index("--")
            words, script_args = words[:cut], words[cut + 1 :]
        parsed, extras = parse_known_args(words, namespace)
        parsed.script_args = script_args
        return parsed, extras

    # The sub-command's parser is called by the top-level one through this method.
    vars(parser)["parse_known_args"] = split_then_parse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "dryrun",
        help="build the model and run MMEngine's wrap code on N real ranks (executes the "
        "config, or the entry script with --entry)",
        description="Executes the config's code and its custom_imports; with --entry, "
        "executes the entry script itself, as `torchrun SCRIPT ARGS...` would, up to where "
        "training starts. Needs the dryrun extra: pip install 'cfglint[dryrun]'.",
        usage="%(prog)s [CONFIG | --entry SCRIPT] [--target NAME] [--world-size N] "
        "[--launcher {none,pytorch}] [--timeout S] [--json] [-- ARGS...]",
    )
    parser.add_argument("config", type=Path, metavar="CONFIG", nargs="?")
    parser.add_argument(
        "--entry",
        type=Path,
        metavar="SCRIPT",
        help="run this entry script (with the ARGS after `--`) instead of a config",
    )
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
        help="config dry run only. pytorch: go through mmengine.dist.init_dist as "
        "Runner.setup_env "
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
    parser.set_defaults(handler=run, script_args=None)
    _take_script_arguments(parser)


def _check_config(config: Path) -> None:
    if config.is_dir():
        raise UserError(f"{config}: is a directory, not a config file")
    if not config.is_file():
        raise UserError(f"{config}: no such config file")


def _check_usage(args: argparse.Namespace) -> None:
    if args.entry is None:
        if args.config is None:
            raise UserError("dryrun needs a CONFIG, or --entry SCRIPT (with its ARGS after --)")
        if args.script_args is not None:
            raise UserError(
                "arguments after `--` are an entry script's: pass --entry SCRIPT, or leave "
                "them out for a config dry run"
            )
        return
    if args.config is not None:
        raise UserError(
            f"--entry takes no CONFIG ({args.config}): pass the script's own arguments after "
            f"`--`, e.g. cfglint dryrun --entry {args.entry} -- {args.config}"
        )
    if args.launcher is not None:
        raise UserError(
            "--launcher is for a config dry run: with --entry the script decides; pass the "
            f"script's own option after `--`, e.g. -- CONFIG --launcher {args.launcher}"
        )


def _check_script(script: Path) -> None:
    if script.is_dir():
        raise UserError(f"{script}: is a directory, not an entry script")
    if not script.is_file():
        raise UserError(f"{script}: no such entry script")


def _entry_target(
    script: Path, script_args: Sequence[str], cli_target: str | None
) -> tuple[Target, Path | None]:
    """`--target`, else the target the config among the script's arguments declares."""
    from cfglint.dryrun.entry import CONFIG_SUFFIXES, config_among
    from cfglint.settings import target_name_for
    from cfglint.targets import load_target

    config = config_among(script_args, Path.cwd())
    if cli_target is None and config is None:
        raise UserError(
            f"{script}: no target for this entry script: pass --target NAME, or its config "
            f"(a {'/'.join(CONFIG_SUFFIXES)} file that declares a target) among the script's "
            "arguments after `--`; `cfglint targets` lists the names"
        )
    if config is None:
        return load_target(target_name_for(script, cli_target), script), None
    return load_target(target_name_for(config, cli_target), config), config


def _check_devices(world_size: int, view: TargetView) -> None:
    """Before any rank starts: a rank with no device of its own would die, and the others
    hang waiting for it."""
    from cfglint.dryrun.visible import too_few_devices

    problem = too_few_devices(world_size, view)
    if problem is not None:
        raise UserError(problem)


def _run_ranks(args: argparse.Namespace, dry_run_here: _DryRun) -> int:
    from cfglint.dryrun import Stopped
    from cfglint.dryrun.render_json import render_json
    from cfglint.dryrun.render_text import render_text

    try:
        with progress.bar(
            not args.json,
            "dry run: ranks finished",
            "{task.completed}/{task.total}",
            args.world_size,
        ) as on_rank_done:
            report = dry_run_here(on_rank_done)
    except Stopped as stop:
        print(
            f"cfglint dryrun: stopped by {stop}: every rank was killed",
            file=sys.stderr,
        )
        return 128 + stop.signum
    sys.stdout.write(render_json(report) + "\n" if args.json else render_text(report))
    return report.exit_code


def _run_entry(args: argparse.Namespace) -> int:
    from cfglint.dryrun import TargetView
    from cfglint.dryrun.entry import EntryJob, dry_run_entry
    from cfglint.dryrun.extra import require_extra
    from cfglint.dryrun.render_text import command_line

    script: Path = args.entry
    script_args = tuple(args.script_args or ())
    _check_script(script)
    target, config = _entry_target(script, script_args, args.target)
    view = TargetView.of(target)
    require_extra()
    _check_devices(args.world_size, view)
    job = EntryJob(script=script, args=script_args, cwd=Path.cwd(), config=config)
    print(
        f"cfglint dryrun: this executes the entry script `{command_line(script, script_args)}` "
        "(Python code) "
        f"in {args.world_size} process(es), up to where training would start",
        file=sys.stderr,
    )
    return _run_ranks(
        args,
        lambda on_rank_done: dry_run_entry(
            job,
            view,
            world_size=args.world_size,
            timeout_s=args.timeout,
            on_rank_done=on_rank_done,
        ),
    )


def run(args: argparse.Namespace) -> int:
    from cfglint.dryrun import TargetView, dry_run
    from cfglint.dryrun.extra import require_extra
    from cfglint.settings import target_name_for
    from cfglint.targets import load_target

    _check_usage(args)
    if args.entry is not None:
        return _run_entry(args)
    config: Path = args.config
    _check_config(config)
    target = load_target(target_name_for(config, args.target), config)
    view = TargetView.of(target)
    require_extra()
    _check_devices(args.world_size, view)
    print(
        f"cfglint dryrun: this executes {config} (Python code) and imports its "
        f"custom_imports, in {args.world_size} process(es)",
        file=sys.stderr,
    )
    launcher = LAUNCHERS[args.launcher]
    return _run_ranks(
        args,
        lambda on_rank_done: dry_run(
            config,
            view,
            world_size=args.world_size,
            launcher=launcher,
            timeout_s=args.timeout,
            on_rank_done=on_rank_done,
        ),
    )
