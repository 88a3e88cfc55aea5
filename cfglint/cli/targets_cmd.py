"""`cfglint targets [NAME] [--json-schema]`: list targets, show one, export its schema."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfglint.cli.common import EXIT_CLEAN
from cfglint.errors import UserError
from cfglint.settings import settings_for
from cfglint.targets import Target, TargetRegistry
from cfglint.targets.config_model import json_schema


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("targets", help="list hardware targets or show one")
    parser.add_argument("name", nargs="?", help="target name, e.g. t20-gcu")
    parser.add_argument(
        "--json-schema",
        action="store_true",
        help="print the JSON Schema of the config keys the target checks",
    )
    parser.set_defaults(handler=run)


def _describe(target: Target) -> str:
    lines = [
        f"{target.name}: {target.description}",
        f"  device: {target.device}"
        + (
            ""
            if target.mmengine_knows_device
            else " (MMEngine does not know it: get_device() is 'cpu')"
        ),
        f"  defined in: {', '.join(str(path) for path in target.sources)}",
        "  checks:",
    ]
    for key, policy in target.keys.items():
        if policy.allowed is not None:
            allowed = "one of " + ", ".join(repr(v) for v in policy.allowed)
        elif policy.forbidden is not None:
            allowed = "not " + ", ".join(repr(v) for v in policy.forbidden)
        else:
            allowed = "no literal list" if policy.forbidden_literal_list else "anything"
        fix = "no fix"
        if policy.fix is not None:
            what = "remove the key" if policy.fix.remove else f"write {policy.fix.value!r}"
            fix = f"fix: {what} ({'safe' if policy.fix.safe else 'unsafe'})"
        lines.append(f"    {policy.rule}  {key}: {allowed}; {fix}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    registry = TargetRegistry(settings_for(Path.cwd()).extra_targets)
    if args.name is None:
        if args.json_schema:
            raise UserError("--json-schema needs a target name")
        for name in registry.names():
            target = registry.get(name)
            sys.stdout.write(f"{name:<12} {target.device:<6} {target.description}\n")
        return EXIT_CLEAN
    target = registry.get(args.name)
    if args.json_schema:
        sys.stdout.write(json.dumps(json_schema(target), indent=2) + "\n")
    else:
        sys.stdout.write(_describe(target))
    return EXIT_CLEAN
