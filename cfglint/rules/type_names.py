"""The registry name a config's `type` value builds: what the rules compare a `type` with.

MMEngine's registries take a name, optionally behind the scope of the package whose registry
holds it (`type='mmengine.AmpOptimWrapper'` builds `AmpOptimWrapper` from MMEngine's own
registry), or, in a config that imports what it builds (a lazy-import config:
`from mmengine.optim import AmpOptimWrapper`, then `type=AmpOptimWrapper`), the class itself,
which the loader keeps as the dotted path it was imported from.
"""

from __future__ import annotations

from cfglint.types import ConfigNode, LazyImport, ScalarNode


def is_type_key(key: str) -> bool:
    """Whether a dotted key is a `type` entry (compared by registry name, in the check and in
    its JSON Schema alike)."""
    return key.rsplit(".", 1)[-1] == "type"


def written_type(value: object) -> str | None:
    """A `type` value as the config names it: the string, or the imported class's path."""
    if isinstance(value, str):
        return value
    return value.path if isinstance(value, LazyImport) else None


def registry_name(value: object) -> str | None:
    """The name `value` builds as a `type`, or None for a value that names no class."""
    written = written_type(value)
    return None if written is None else written.rsplit(".", 1)[-1]


def type_name(node: ConfigNode | None) -> str | None:
    """The registry name a `type` entry builds (None: absent, unknown, or naming no class)."""
    return registry_name(node.value) if isinstance(node, ScalarNode) else None
