"""Command-line entry point: one module per sub-command, each with ``register`` and ``run``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from cfglint import __version__, session
from cfglint.cli.common import EXIT_ERROR
from cfglint.crash_log import ISSUES_URL, internal_error
from cfglint.errors import UserError

__all__ = ["ISSUES_URL", "build_parser", "main"]


# Each command's module, in the order `--help` lists them. Only the module of the command run is
# imported (`cfglint --version` imports none): some pull in the loader, rich or libcst.
_COMMANDS = {
    "check": "check_cmd",
    "fix": "check_cmd",
    "show": "show_cmd",
    "dryrun": "dryrun_cmd",
    "review": "review_cmd",
    "rule": "rule_cmd",
    "targets": "targets_cmd",
}


def _subcommand_modules(argv: Sequence[str] | None = None) -> list[ModuleType]:
    """The modules to register: the named command's alone, none for `--version`, every one
    otherwise (help, a mistyped command)."""
    names = list(dict.fromkeys(_COMMANDS.values()))
    if argv is not None:
        # The top-level options take no value: the first other word is the command.
        command = next((word for word in argv if not word.startswith("-")), None)
        if command in _COMMANDS:
            names = [_COMMANDS[command]]
        elif command is None and any(word in ("--version", "-V") for word in argv):
            names = []
    return [importlib.import_module(f"cfglint.cli.{name}") for name in names]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own usage errors: one line and exit 2, like every other user mistake.
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the arguments, only with what parsing them needs."""
    parser = _Parser(
        prog="cfglint",
        description="Lint and fix MMEngine configs for the hardware they will run on.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"cfglint {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _subcommand_modules(argv):
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        with session.command():
            return handler(args)
    except UserError as error:
        _print_failure(error)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as error:
        _print_failure(error)
        return EXIT_ERROR


def _print_failure(error: Exception) -> None:
    """The one line for a command stopped by a user's mistake (a UserError) or by cfglint's own
    failure (an internal error, its traceback logged)."""
    # Imported here: a command that ends normally has no use for them (start-up stays light).
    from cfglint.cli.notices import print_notices
    from cfglint.notice import Notice

    notice = Notice.error(str(error)) if isinstance(error, UserError) else internal_error(error)
    print_notices([notice])
