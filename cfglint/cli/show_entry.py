"""`cfglint show --entry SCRIPT CONFIG`: the config as the entry script hands it to the Runner.

Every path through the script is shown (with the branches that lead to it), each key with the
line that set it, marked where the entry script or the launcher overrode the config.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfglint.cli.common import EXIT_CLEAN, EXIT_ERROR
from cfglint.engine.launches import entry_spec
from cfglint.engine.run import NEUTRAL_HOST
from cfglint.errors import UserError
from cfglint.launch.explore import explore
from cfglint.loader import Loader
from cfglint.paths import display_path
from cfglint.settings import target_name_for
from cfglint.show import format_text, to_json
from cfglint.targets import load_target
from cfglint.types import HostFacts, LaunchView, LaunchWorld


def _host(config: Path, cli_target: str | None) -> tuple[HostFacts, str | None]:
    try:
        target = load_target(target_name_for(config, cli_target), config)
    except UserError:
        return NEUTRAL_HOST, None
    return target.host, target.name


def _describe(index: int, count: int, world: LaunchWorld) -> str:
    where = " and ".join(condition.describe() for condition in world.conditions)
    branches = f" (when {where})" if where else ""
    return f"## path {index} of {count}{branches}"


def _ending(world: LaunchWorld) -> str:
    if world.ending_span is None:
        return f"no Runner on this path: {world.ending or 'the script ends'}"
    span = world.ending_span
    return f"no Runner on this path: {world.ending} ({display_path(span.path)}:{span.line})"


def _text(view: LaunchView, keys: list[str], target: str | None) -> str:
    launch = view.launch
    words = [
        display_path(Path(word)) if word.startswith("/") else word for word in launch.arguments
    ]
    shown = " ".join((display_path(launch.entry), *words))
    lines = [f"# {display_path(view.config) if view.config else '?'} launched as `python {shown}`"]
    lines.append(f"# host: {target or 'no target (CPU host assumed)'}")
    lines.extend(f"# note: {note}" for note in view.notes)
    for index, world in enumerate(view.worlds, 1):
        if len(view.worlds) > 1:
            lines.append(_describe(index, len(view.worlds), world))
        if world.config is None:
            lines.append(_ending(world))
            continue
        lines.append(format_text(world.config, keys).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _json(view: LaunchView, keys: list[str]) -> dict[str, object]:
    return {
        "entry": display_path(view.launch.entry),
        "arguments": list(view.launch.arguments),
        "notes": list(view.notes),
        "paths": [
            {
                "conditions": [
                    {"test": c.text, "holds": c.holds, "line": c.span.line}
                    for c in world.conditions
                ],
                "keys": to_json(world.config, keys) if world.config is not None else None,
                "ending": world.ending,
            }
            for world in view.worlds
        ],
    }


def run_entry(args: argparse.Namespace) -> int:
    if not args.entry.is_file():
        raise UserError(f"{args.entry}: no such entry script")
    spec = entry_spec(args.entry, args.entry_args, Path.cwd())
    loader = Loader()
    failed = False
    texts: list[str] = []
    as_json: dict[str, object] = {}
    for config in args.configs:
        absolute = Path.cwd() / config
        host, target = _host(absolute, args.target)
        view = explore(spec.launch_of(absolute), host, loader, config=absolute)
        for problem in view.problems:
            failed = True
            span = problem.span
            where = f"{display_path(span.path)}:{span.line}:{span.column}"
            print(f"{where}: {problem.code} {problem.message}", file=sys.stderr)
        if view.problems:
            continue
        if args.json:
            as_json[display_path(absolute)] = _json(view, args.key)
        else:
            texts.append(_text(view, args.key, target))
    if args.json:
        sys.stdout.write(json.dumps(as_json, indent=2, ensure_ascii=False) + "\n")
    elif texts:
        sys.stdout.write("\n".join(texts))
    return EXIT_ERROR if failed else EXIT_CLEAN
