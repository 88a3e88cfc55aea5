"""Command-line entry point: one module per sub-command, each with ``register`` and ``run``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from cfglint import __version__
from cfglint.cli.common import EXIT_ERROR
from cfglint.crash_log import ISSUES_URL, internal_error
from cfglint.errors import UserError

__all__ = ["ISSUES_URL", "build_parser", "main"]


def _subcommand_modules() -> list[ModuleType]:
    from cfglint.cli import check_cmd, dryrun_cmd, review_cmd, rule_cmd, show_cmd, targets_cmd

    return [check_cmd, show_cmd, dryrun_cmd, review_cmd, rule_cmd, targets_cmd]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own usage errors: one line and exit 2, like every other user mistake.
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cfglint",
        description="Lint and fix MMEngine configs for the hardware they will run on.",
    )
    parser.add_argument("--version", action="version", version=f"cfglint {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _subcommand_modules():
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return handler(args)
    except UserError as error:
        print(f"cfglint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as error:
        print(f"cfglint: {internal_error(error)}", file=sys.stderr)
        return EXIT_ERROR
