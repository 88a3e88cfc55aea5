"""`os.environ` as a launch sets it, for the entry script's interpreter.

What the launcher sets (`export X=...`, `X=... python ...`) is known; what its runner sets per
rank (`RANK`, `LOCAL_RANK` from torchrun) is set with a value that differs per rank; every other
name is unknown, not absent: the shell the job starts in exports what it likes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cfglint.launch.functions import entries
from cfglint.loader.calls import Arguments
from cfglint.loader.values import DefiniteError, UnknowableError, Val, VDict, thaw, to_py
from cfglint.types import DictNode, Launch, Origin, ScalarNode, UnknownNode


@dataclass
class EnvironHandle:
    """`os.environ`: `known` what the launcher (or the script) set, `per_rank` what the runner
    sets per rank, `removed` what the script took out."""

    known: dict[str, Val]
    per_rank: frozenset[str] = frozenset()
    removed: set[str] = field(default_factory=set)


def environment(launch: Launch, origin: Origin) -> EnvironHandle:
    source = launch.source
    where = Origin(source, (source.path,)) if source is not None else origin
    known: dict[str, Val] = {
        key: ScalarNode(value, where) for key, value in launch.environment.items()
    }
    world = launch.world_size
    if launch.rank_variables:
        if world is not None and "WORLD_SIZE" in launch.rank_variables:
            known["WORLD_SIZE"] = ScalarNode(str(world), where)
        if launch.nproc_per_node is not None and "LOCAL_WORLD_SIZE" in launch.rank_variables:
            known["LOCAL_WORLD_SIZE"] = ScalarNode(str(launch.nproc_per_node), where)
    per_rank = frozenset(launch.rank_variables) - frozenset(known)
    return EnvironHandle(known, per_rank)


def has(environ: EnvironHandle, key: object) -> bool:
    if key in environ.removed:
        return False
    if key in environ.known or key in environ.per_rank:
        return True
    raise UnknowableError(f"whether `{key}` is set in the environment the job starts in")


def get(environ: EnvironHandle, key: object, default: Val | None, origin: Origin) -> Val:
    if key in environ.known and key not in environ.removed:
        return environ.known[str(key)]
    if key in environ.per_rank:
        return UnknownNode(f"${key}", "set per rank by the launcher", origin)
    if key in environ.removed:
        if default is None:
            raise DefiniteError(f"KeyError: {key!r}")
        return default
    raise UnknowableError(f"`{key}` from the environment the job starts in")


def method(environ: EnvironHandle, name: str, arguments: Arguments, origin: Origin) -> Val:
    values = arguments.positional
    if name == "get":
        default = values[1] if len(values) > 1 else ScalarNode(None, origin)
        return get(environ, to_py(values[0]), default, origin)
    if name == "setdefault":
        key = to_py(values[0])
        if not isinstance(key, str) or len(values) < 2:
            raise DefiniteError("TypeError: setdefault() takes a str key and a value")
        if key in environ.removed:
            environ.removed.discard(key)
            environ.known[key] = values[1]
        elif key not in environ.known and key not in environ.per_rank:
            # Set from now on: to what the environment had, or to the default.
            reason = "the environment's value, or the default when it had none"
            environ.known[key] = UnknownNode(f"${key}", reason, origin)
        return get(environ, key, None, origin)
    if name == "pop":
        key = to_py(values[0])
        environ.removed.add(str(key))
        return values[1] if len(values) > 1 else UnknownNode(str(key), "the environment", origin)
    if name == "update":
        source = values[0] if values else VDict(entries(arguments.keywords), origin)
        if isinstance(source, DictNode):
            source = thaw(source)
        if isinstance(source, VDict):
            for key, value in source.entries.items():
                environ.known[str(key)] = value
            return ScalarNode(None, origin)
    raise UnknowableError(f"os.environ.{name}()")
