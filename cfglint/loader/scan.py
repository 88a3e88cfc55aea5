"""A resolved dict's entries as the loader stores them, for a rule that looks at every value.

Reaching a node through a tree's mapping views re-roots its origin under the config
(rebase.py): cheap for the few keys a rule asks for, but a walk over every value of every config
re-roots about 860,000 nodes on the corpus and costs several times the resolution itself. A scan
that only needs keys and values reads the entries as stored instead, and asks the tree itself
(``DictNode.entries[key]``) for the few nodes it reports: those carry the config's origins.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cfglint.loader.merge import OverlayEntries
from cfglint.loader.rebase import RebasedEntries
from cfglint.types import ConfigNode


def stored_items(entries: Mapping[object, ConfigNode]) -> Iterator[tuple[object, ConfigNode]]:
    """The entries in the dict's own order (as iterating it gives them), each node as stored:
    a value a base set keeps the origin chain it has in that base."""
    while isinstance(entries, RebasedEntries):
        entries = entries._source
    if not isinstance(entries, OverlayEntries):
        yield from entries.items()
        return
    own, base = entries._own, entries._base
    for key, value in stored_items(base):
        yield key, own.get(key, value)
    for key, value in own.items():
        if key not in base:
            yield key, value
