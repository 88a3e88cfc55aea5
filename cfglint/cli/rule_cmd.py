"""`cfglint rule [CODE | --all]`: the rules in a table, or a rule's page (rendered on a
terminal, Markdown otherwise)."""

from __future__ import annotations

import argparse
import sys

from cfglint.cli.common import EXIT_CLEAN, table
from cfglint.codes import CODES
from cfglint.errors import UserError
from cfglint.rules import ALL_RULES, RULES_BY_CODE
from cfglint.rules.docs import render_rule
from cfglint.suggest import did_you_mean

# The fix column: what `cfglint fix` may do for the rule.
_FIX = {"target": "per target", "safe": "safe", "unsafe": "unsafe", "none": "-"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rule", help="list the rules, or explain one", description="Without a code: the rules."
    )
    parser.add_argument("code", nargs="?", help="rule code, e.g. CL201")
    parser.add_argument("--all", action="store_true", help="explain every rule")
    parser.set_defaults(handler=run)


def rule_table() -> str:
    """One line per rule under labelled columns: code, name, severity, fix, summary."""
    rows = [("CODE", "NAME", "SEVERITY", "FIX", "SUMMARY")]
    for rule in ALL_RULES:
        entry = CODES[rule.code]
        rows.append((rule.code, rule.name, entry.severity, _FIX[entry.fix], rule.summary))
    return table(rows)


def _show(markdown: str) -> None:
    """Markdown as it is into a pipe or a file; rendered (headings, code blocks) on a terminal."""
    if not sys.stdout.isatty():
        sys.stdout.write(markdown)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(markdown))


def run(args: argparse.Namespace) -> int:
    if args.all and args.code is not None:
        raise UserError("give a rule code or --all, not both")
    if args.all:
        _show("\n---\n\n".join(render_rule(rule) for rule in ALL_RULES))
        return EXIT_CLEAN
    if args.code is None:
        sys.stdout.write(rule_table())
        return EXIT_CLEAN
    rule = RULES_BY_CODE.get(args.code.upper())
    if rule is None:
        hint = did_you_mean(args.code.upper(), RULES_BY_CODE)
        raise UserError(f"unknown rule {args.code!r}{hint} (`cfglint rule` lists the rules)")
    _show(render_rule(rule))
    return EXIT_CLEAN
