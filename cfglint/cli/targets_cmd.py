"""`cfglint targets [NAME] [--json-schema]`: list targets, show one, export its schema."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfglint.cli.common import EXIT_CLEAN, table
from cfglint.errors import UserError
from cfglint.settings import settings_for
from cfglint.targets import Target, TargetRegistry
from cfglint.targets.config_model import json_schema
from cfglint.targets.describe import check_lines, every_target_codes, host_lines


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
        f"  device: {target.device}",
        f"  defined in: {', '.join(str(path) for path in target.sources)}",
        *(f"  {line}" for line in host_lines(target)),
        "  checks:",
        *(f"    {line}" for line in check_lines(target)),
        f"  checks on every target: {', '.join(every_target_codes())}",
    ]
    variant = target.with_vendor_import
    vendor = target.host.vendor_import
    if variant is not None and vendor is not None:
        lines.append(f"  checks once `{vendor.modules[0]}` is imported before mmengine:")
        lines.extend(f"    {line}" for line in check_lines(variant))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    registry = TargetRegistry(settings_for(Path.cwd()).extra_targets)
    if args.name is None:
        if args.json_schema:
            raise UserError("--json-schema needs a target name")
        rows = [("TARGET", "DEVICE", "MMENGINE RESOLVES", "DESCRIPTION")]
        for name in registry.names():
            target = registry.get(name)
            rows.append((name, target.device, target.host.mmengine_device, target.description))
        sys.stdout.write(table(rows))
        return EXIT_CLEAN
    target = registry.get(args.name)
    if args.json_schema:
        sys.stdout.write(json.dumps(json_schema(target), indent=2) + "\n")
    else:
        sys.stdout.write(_describe(target))
    return EXIT_CLEAN
