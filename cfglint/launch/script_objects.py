"""The objects an entry script works with besides config data, as the interpreter models them.

Each is held in an `Opaque("object", ...)` value's `py`: the argparse parser and its namespace,
the Runner, a DDP wrapper (the process environment is environ.py's). The names the interpreter
dispatches on are in known_names.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.launch.arguments import ParserModel
from cfglint.loader.values import Val


@dataclass
class ParserHandle:
    """An ArgumentParser (group 0) or one of its argument groups."""

    model: ParserModel
    group: int = 0


@dataclass
class NamespaceHandle:
    """What `parse_args` returned: an attribute per destination."""

    values: dict[str, Val]


@dataclass
class RunnerHandle:
    """A Runner the script built (or the registry built for it)."""

    kind: str


@dataclass
class WrapperHandle:
    """A model wrapper the script built itself (DistributedDataParallel and friends)."""

    kind: str
