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


def stored_entries(entries: Mapping[object, ConfigNode]) -> Mapping[object, ConfigNode]:
    """The entries a dict's view shows, as they are stored: the very mapping a base holds, for
    the view every config inheriting it reaches it through."""
    # Exact types: an isinstance check against a Mapping subclass goes through the ABC machinery,
    # several times slower, and this runs for every dict of every config.
    while type(entries) is RebasedEntries:
        entries = entries._source
    return entries


def overlay_layers(
    entries: Mapping[object, ConfigNode],
) -> tuple[Mapping[object, ConfigNode], Mapping[object, ConfigNode]] | None:
    """A merged dict's base entries and the entries the config wrote over them; None for a dict
    that is not a merge."""
    if type(entries) is OverlayEntries:
        return entries._base, entries._own
    return None


def stored_items(entries: Mapping[object, ConfigNode]) -> Iterator[tuple[object, ConfigNode]]:
    """The entries in the dict's own order (as iterating it gives them), each node as stored:
    a value a base set keeps the origin chain it has in that base."""
    entries = stored_entries(entries)
    layers = overlay_layers(entries)
    if layers is None:
        yield from entries.items()
        return
    base, own = layers
    for key, value in stored_items(base):
        yield key, own.get(key, value)
    for key, value in own.items():
        if key not in base:
            yield key, value
