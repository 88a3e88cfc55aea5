"""`cfglint check` and `cfglint fix`: the arguments, and the result cache around the run.

Light on purpose: a cached result is printed without importing the pipeline
(`cli/check_run.py`), which is imported only when the check runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

from cfglint.cache.store import CACHE_FOLDER, ENVIRONMENT_VARIABLE
from cfglint.cli.cached import run_cached
from cfglint.cli.common import OUTPUT_FORMATS, codes_argument
from cfglint.errors import UserError

# Options that change nothing in what the run prints, or that say how to cache it.
_NOT_IN_KEY = frozenset({"handler", "no_cache", "cache_dir"})


def _add_arguments(parser: argparse.ArgumentParser, *, is_fix: bool) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        default=[],
        metavar="PATH",
        help="config files or folders (default: the current folder)",
    )
    parser.add_argument("--target", help="check every config for this target (beats settings)")
    parser.add_argument(
        "--entry",
        type=Path,
        metavar="SCRIPT",
        help="check each config as this entry script launches it (`python SCRIPT CONFIG ...`)",
    )
    parser.add_argument(
        "--entry-args",
        default="",
        metavar="ARGS",
        help='the entry script\'s arguments after the config, e.g. "--launcher pytorch" '
        "(`{config}` places the config elsewhere)",
    )
    parser.add_argument(
        "--select",
        type=codes_argument,
        metavar="CODES",
        help="comma-separated rule codes or prefixes to enable (default: all)",
    )
    parser.add_argument(
        "--ignore",
        type=codes_argument,
        default=(),
        metavar="CODES",
        help="comma-separated rule codes or prefixes to disable",
    )
    if not is_fix:
        parser.add_argument("--fix", action="store_true", help="apply fixes in place")
        parser.add_argument(
            "--add-noqa",
            action="store_true",
            help="add `# cfglint: noqa: CODE` to each line with a finding (.py and YAML files; "
            "JSON has no comments)",
        )
    parser.add_argument("--unsafe-fixes", action="store_true", help="also apply unsafe fixes")
    parser.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff and write nothing"
    )
    parser.add_argument(
        "--fix-placement",
        choices=("auto", "origin", "leaf"),
        help="where fixes for values set in a _base_ file go (default: settings, else auto)",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply `exclude` from the settings to paths named explicitly too (for pre-commit)",
    )
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    parser.add_argument(
        "-o",
        "--output-file",
        type=Path,
        metavar="FILE",
        help="write the report to FILE instead of standard output (whole, or not at all)",
    )
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="count violations per rule instead of listing them",
    )
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when violations remain"
    )
    parser.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when a fix was applied, even if nothing remains",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the result cache",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where the result cache lives (default: ${ENVIRONMENT_VARIABLE}, else "
        f"{CACHE_FOLDER}/ in the project root)",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="lint configs for their hardware target")
    _add_arguments(check, is_fix=False)
    check.set_defaults(handler=run, force_fix=False)
    fix = subparsers.add_parser("fix", help="fix configs in place (same as check --fix)")
    _add_arguments(fix, is_fix=True)
    fix.set_defaults(handler=run, force_fix=True)


def run(args: argparse.Namespace) -> int:
    options = {name: value for name, value in vars(args).items() if name not in _NOT_IN_KEY}

    def check() -> int:
        from cfglint.cli import check_run

        return check_run.run(args)

    paths = tuple(args.paths) or (Path("."),)
    named = [*paths, *([args.entry] if args.entry is not None else [])]

    def cached() -> int:
        return run_cached(
            "check", options, named, check, enabled=not args.no_cache, cache_dir=args.cache_dir
        )

    if args.output_file is None:
        return cached()
    if getattr(args, "add_noqa", False):
        raise UserError("--add-noqa writes no report: leave out --output-file")
    # The report is what the run (or the cache, replaying it) prints on stdout: kept, then
    # written to the file at once.
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        exit_code = cached()
    _write_report(args.output_file, report.getvalue())
    return exit_code


def _write_report(path: Path, text: str) -> None:
    from cfglint.fix.atomic import write_report

    try:
        write_report(path, text)
    except OSError as error:
        raise UserError(f"cannot write the report to {path}: {error.strerror or error}") from None
