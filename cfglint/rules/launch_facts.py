"""Questions the rules ask of one path through an entry script (its events, in order)."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.launch.known_names import MMENGINE_PACKAGES
from cfglint.types import LaunchWorld, Origin, ScriptEvent, ScriptEventKind, Span, UnknownNode


def events(world: LaunchWorld, kind: ScriptEventKind) -> Iterator[ScriptEvent]:
    return (event for event in world.events if event.kind == kind)


def runner_index(world: LaunchWorld) -> int | None:
    for index, event in enumerate(world.events):
        if event.kind == "runner":
            return index
    return None


def group_before_runner(world: LaunchWorld) -> bool:
    """Whether the script creates the process group before the Runner (which then skips
    `init_dist`): `init_process_group`, or its own `init_dist` call."""
    end = runner_index(world)
    before = world.events if end is None else world.events[:end]
    return any(event.kind in ("process_group", "init_dist") for event in before)


def first_mmengine_import(world: LaunchWorld) -> ScriptEvent | None:
    """The import that imports mmengine first: MMEngine decides its device right then."""
    for event in events(world, "import"):
        if event.name.split(".")[0] in MMENGINE_PACKAGES:
            return event
    return None


def import_of(world: LaunchWorld, modules: tuple[str, ...]) -> ScriptEvent | None:
    """The first import of one of `modules` (`torch_gcu.transfer_to_gcu`), by module or by
    `from package import module`."""
    for event in events(world, "import"):
        if event.name in modules:
            return event
    return None


def last_import_of_library(
    world: LaunchWorld, library: str, before: ScriptEvent
) -> ScriptEvent | None:
    """The last import of the vendor library (`import torch_gcu`) before `before`."""
    found = None
    for event in events(world, "import"):
        if event is before:
            break
        if event.name.split(".")[0] == library:
            found = event
    return found


def is_unknown(event: ScriptEvent, name: str) -> bool:
    return isinstance(event.values.get(name), UnknownNode)


def origin_at(span: Span) -> Origin:
    """Where a finding about a line of code is (the line's own file is its whole chain)."""
    return Origin(span, (span.path,))
