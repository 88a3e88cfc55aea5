"""`cfglint rule CODE` / `cfglint rule --all`: explain rules."""

from __future__ import annotations

import argparse
import sys

from cfglint.cli.common import EXIT_CLEAN
from cfglint.errors import UserError
from cfglint.rules import ALL_RULES, RULES_BY_CODE
from cfglint.rules.docs import render_rule


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("rule", help="explain a rule")
    parser.add_argument("code", nargs="?", help="rule code, e.g. CL201")
    parser.add_argument("--all", action="store_true", help="explain every rule")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.all and args.code is not None:
        raise UserError("give a rule code or --all, not both")
    if args.all:
        sys.stdout.write("\n---\n\n".join(render_rule(rule) for rule in ALL_RULES))
        return EXIT_CLEAN
    if args.code is None:
        raise UserError("give a rule code (e.g. `cfglint rule CL201`) or --all")
    rule = RULES_BY_CODE.get(args.code.upper())
    if rule is None:
        known = ", ".join(RULES_BY_CODE)
        raise UserError(f"unknown rule {args.code!r} (known: {known})")
    sys.stdout.write(render_rule(rule))
    return EXIT_CLEAN
