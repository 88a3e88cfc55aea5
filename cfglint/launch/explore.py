"""Every path through an entry script: the launch view.

The script is interpreted once per combination of undecidable branches (depth first, the branch
taken before the one skipped), each run from the first line with the choices of the path fixed
(interpreter.Decisions), up to MAX_WORLDS paths. Each path ends with the config it hands to the
Runner, if it reaches one, and the events met on the way.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from cfglint.codes import SYNTAX_ERROR, UNREADABLE_CONFIG
from cfglint.files import UnreadableFileError, read_text_capped
from cfglint.launch.interpreter import ConfigFailed, Decisions, PathEnd
from cfglint.launch.script_calls import ScriptRunner
from cfglint.loader import Loader
from cfglint.loader.problems import LoadError
from cfglint.loader.source import SourceText
from cfglint.loader.values import UnknowableError, freeze
from cfglint.types import (
    ConfigNode,
    DictNode,
    HostFacts,
    Launch,
    LaunchView,
    LaunchWorld,
    LoadProblem,
    ResolvedConfig,
    ScalarNode,
    SequenceNode,
    Span,
    UnknownNode,
    walk_nodes,
)

MAX_WORLDS = 32


def read_script(path: Path) -> tuple[SourceText, ast.Module] | LoadProblem:
    """The entry script's text and syntax tree, or why it cannot be read."""
    start = Span(path, 1, 1, 1, 1)
    try:
        text = read_text_capped(path)
    except UnreadableFileError as error:
        return LoadProblem(UNREADABLE_CONFIG, f"entry script: {error.reason}", start)
    except UnicodeDecodeError:
        return LoadProblem(UNREADABLE_CONFIG, "entry script: not UTF-8 text", start)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as error:
        line = error.lineno or 1
        return LoadProblem(SYNTAX_ERROR, f"syntax error: {error.msg}", Span(path, line, 1, line, 1))
    except (ValueError, RecursionError, MemoryError):
        return LoadProblem(SYNTAX_ERROR, "the entry script cannot be parsed", start)
    return SourceText(path, text), tree


def explore(
    launch: Launch,
    host: HostFacts,
    loader: Loader,
    *,
    config: Path | None = None,
) -> LaunchView:
    """The launch view. `config`: load this file whatever path the script computes (the
    command line named the config; the script's argument is only a placeholder then)."""
    read = read_script(launch.entry)
    if isinstance(read, LoadProblem):
        return LaunchView(launch, config, (), (read,))
    source, tree = read
    worlds: list[LaunchWorld] = []
    problems: list[LoadProblem] = []
    notes: dict[str, None] = dict.fromkeys(launch.notes)
    loaded: Path | None = config
    pending: list[tuple[int, ...]] = [()]
    while pending and len(worlds) < MAX_WORLDS:
        prefix = pending.pop()
        decisions = Decisions(prefix)
        runner = ScriptRunner(source, launch, host, loader, decisions, config_override=config)
        world, failure = _run(runner, tree)
        if failure is not None:
            problems.extend(p for p in failure if p not in problems)
        worlds.append(world)
        notes.update(dict.fromkeys(runner.record.notes))
        if runner.record.loaded and loaded is None:
            loaded = runner.record.loaded[0].path
        made = decisions.made
        # The other side of every branch this run decided for the first time, deepest first
        # popped (a stack): each is one more path.
        for depth in range(len(prefix), len(made)):
            pending.append((*made[:depth], 1))
    complete = not pending
    worlds = _merged(worlds)
    if not complete:
        notes[f"the entry script has more than {MAX_WORLDS} paths: the rest were not explored"] = (
            None
        )
    return LaunchView(launch, loaded, tuple(worlds), tuple(problems), tuple(notes), complete)


def _run(
    runner: ScriptRunner, tree: ast.Module
) -> tuple[LaunchWorld, tuple[LoadProblem, ...] | None]:
    ending: str | None = None
    ending_span: Span | None = None
    failure: tuple[LoadProblem, ...] | None = None
    try:
        runner.run(tree.body)
    except PathEnd as end:
        ending, ending_span = end.ending, end.span
    except ConfigFailed as failed:
        failure = failed.problems
        ending = "the config cannot be resolved"
    except LoadError as error:
        problem = error.problem
        message = problem.message.replace("MMEngine would stop here", "the entry script stops here")
        ending, ending_span = message, problem.span
    except (UnknowableError, RecursionError, MemoryError) as error:
        ending = f"cfglint could not follow the entry script ({type(error).__name__})"
    record = runner.record
    config: ResolvedConfig | None = None
    unknown: UnknownNode | None = None
    if record.runner_config is not None:
        handed = freeze(record.runner_config)
        if isinstance(handed, DictNode):
            config = _view_config(runner, handed)
        else:  # a poisoned dict freezes to its poison
            assert isinstance(handed, UnknownNode)
            unknown = handed
            ending, ending_span = None, None
    world = LaunchWorld(
        tuple(record.conditions),
        tuple(record.events),
        config,
        ending if config is None else None,
        ending_span if config is None else None,
        runner.vendor_imported,
        unknown,
    )
    return world, failure


def _view_config(runner: ScriptRunner, root: DictNode) -> ResolvedConfig:
    loaded = runner.record.runner_loaded
    launch = runner.launch
    overlay = [launch.entry]
    overlay.extend(span.path for span in (*launch.via, *([launch.source] if launch.source else [])))
    if loaded is None:
        return ResolvedConfig(launch.entry, root, tuple(overlay), tuple(overlay))
    overlay = [path for path in dict.fromkeys(overlay) if path not in loaded.files]
    return ResolvedConfig(
        loaded.path, root, (*loaded.files, *overlay), tuple(overlay), lazy=loaded.lazy
    )


def _merged(worlds: list[LaunchWorld]) -> list[LaunchWorld]:
    """Paths that end the same (the same config, values and origins alike, and the same events)
    are one: a branch that changed nothing that matters (`'LOCAL_RANK' not in os.environ`)
    splits nothing. The merged path keeps the conditions its paths share."""
    groups: dict[str, list[LaunchWorld]] = {}
    for world in worlds:
        groups.setdefault(_fingerprint(world), []).append(world)
    merged: list[LaunchWorld] = []
    for group in groups.values():
        first = group[0]
        shared = [c for c in first.conditions if all(c in other.conditions for other in group)]
        merged.append(replace(first, conditions=tuple(shared)))
    return merged


def _fingerprint(world: LaunchWorld) -> str:
    parts: list[str] = [repr((world.ending, world.ending_span))]
    for event in world.events:
        values = sorted((key, _node_text(node)) for key, node in event.values.items())
        parts.append(repr((event.kind, event.name, event.span, event.after_runner, values)))
    if world.config is not None:
        for key, node in walk_nodes(world.config.root, ""):
            parts.append(repr((key, _node_text(node), node.origin.span)))
    return "\n".join(parts)


def _node_text(node: ConfigNode) -> str:
    if isinstance(node, ScalarNode):
        return f"{type(node.value).__name__}:{node.value!r}"
    if isinstance(node, UnknownNode):
        return f"?{node.source}"
    if isinstance(node, SequenceNode):
        return "tuple" if node.is_tuple else "list"
    return "dict"
