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
        *_host_lines(target),
        "  checks:",
        *_check_lines(target),
    ]
    variant = target.with_vendor_import
    vendor = target.host.vendor_import
    if variant is not None and vendor is not None:
        lines.append(f"  checks once `{vendor.modules[0]}` is imported before mmengine:")
        lines.extend(_check_lines(variant))
    return "\n".join(lines) + "\n"


def _host_lines(target: Target) -> list[str]:
    host = target.host
    cuda = "work" if host.cuda else "fail"
    lines = [f"  host: MMEngine resolves {host.mmengine_device!r}; torch.cuda calls {cuda}"]
    vendor = host.vendor_import
    if vendor is not None:
        lines.append(
            f"  vendor import: `{vendor.statement.split('#')[0].strip()}` before mmengine: "
            f"MMEngine resolves {vendor.mmengine_device!r}; torch.cuda calls "
            f"{'work' if vendor.cuda else 'fail'}"
        )
        if target.assumes:
            lines.append(f"  assumes: {target.assumes}")
    return lines


def _check_lines(target: Target) -> list[str]:
    lines = []
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
        assumes = f"; assuming {policy.assumes}" if policy.assumes else ""
        lines.append(f"    {policy.rule}  {key}: {allowed}; {fix}{assumes}")
    return lines


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
