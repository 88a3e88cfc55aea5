"""`cfglint show [--key KEY ...] [--json] CONFIG ...`: resolved values and where they were set."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfglint import crash_log, files
from cfglint.cli.common import EXIT_CLEAN, EXIT_ERROR
from cfglint.cli.notices import print_notices
from cfglint.cli.show_entry import run_entry
from cfglint.crash_log import internal_error
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.settings import target_choice
from cfglint.show import InvalidKeyError, format_text, parse_key, to_json
from cfglint.types import LoadFailure


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "show",
        help="show resolved config values and the file:line that set them",
        description="Resolve each config the way MMEngine would (without running it) and show "
        "the value of each key, the file and line that set it, and the `_base_` chain.",
    )
    parser.add_argument("configs", nargs="+", type=_config_file, metavar="CONFIG")
    parser.add_argument(
        "--key",
        action="append",
        default=[],
        type=_dotted_key,
        metavar="KEY",
        help="dotted key to show, e.g. env_cfg.dist_cfg.backend or model.pipeline.0.type "
        "(repeatable; default: all top-level keys)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--entry",
        type=Path,
        metavar="SCRIPT",
        help="show each config as this entry script hands it to the Runner, path by path",
    )
    parser.add_argument(
        "--entry-args",
        default="",
        metavar="ARGS",
        help="the entry script's arguments after the config (as for `check --entry`)",
    )
    parser.add_argument(
        "--target",
        help="the target to show the configs for, and whose host the entry script runs on "
        "(default: settings)",
    )
    parser.set_defaults(handler=run)


def _config_file(text: str) -> Path:
    """A config file (one that does not exist is reported by the loader, with the others)."""
    path = Path(text)
    if files.is_dir(path):
        raise argparse.ArgumentTypeError(
            f"{text} is a folder: show takes config files (`cfglint check` walks folders)"
        )
    return path


def _dotted_key(key: str) -> str:
    try:
        parse_key(key)
    except InvalidKeyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return key


def _write(text: str) -> None:
    """Config values may hold text the terminal cannot encode (a lone surrogate from JSON)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode(sys.stdout.encoding or "utf-8", "backslashreplace"))


def run(args: argparse.Namespace) -> int:
    if args.entry is not None:
        return run_entry(args)
    if args.entry_args:
        raise UserError("--entry-args needs --entry SCRIPT")
    loader = Loader()
    failed = False
    as_json: dict[str, object] = {}
    texts: list[str] = []
    for config in args.configs:
        result = loader.load(config)
        if isinstance(result, LoadFailure):
            failed = True
            if result.internal is not None:
                print_notices([crash_log.report(result.internal)])
            for problem in result.problems:
                span = problem.span
                where = f"{display_path(span.path)}:{span.line}:{span.column}"
                print(f"{where}: {problem.code} {problem.message}", file=sys.stderr)
            continue
        try:
            if args.json:
                as_json[display_path(result.path)] = to_json(result, args.key)
            else:
                header = f"# {display_path(result.path)}\n" if len(args.configs) > 1 else ""
                texts.append(
                    header + _target_line(config, args.target) + format_text(result, args.key)
                )
        except Exception as error:  # one config cfglint cannot show: the others are shown
            failed = True
            print_notices([internal_error(error, result.path)])
    if args.json:
        text = json.dumps(as_json, indent=2, ensure_ascii=False)
        if not _encodable(text):
            text = json.dumps(as_json, indent=2)  # \u escapes: still the same JSON
        _write(text + "\n")
    elif texts:
        _write("\n".join(texts))
    return EXIT_ERROR if failed else EXIT_CLEAN


def _target_line(config: Path, cli_target: str | None) -> str:
    """Which target `check` gives the config, and why: --target, its comment, the settings
    (nothing when none does: `check` says so)."""
    try:
        choice = target_choice(config, cli_target)
    except UserError:
        return ""
    return f"target: {choice.name} (from {choice.source})\n"


def _encodable(text: str) -> bool:
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        return False
    return True
