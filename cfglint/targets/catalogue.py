"""The rules a target file may configure, and the config key each of them reads.

A rule reads one key whatever the target; the target file repeats the key so that it reads as
a list of checked keys. Both must agree: a policy under a mistyped key would otherwise be
silently applied to the rule's real key (and a fix would write the mistyped one).
"""

from __future__ import annotations

from collections.abc import Mapping

from cfglint.codes import RULE_KEYS

__all__ = ["RULE_KEYS", "catalogue_problem"]


def catalogue_problem(entries: Mapping[str, str]) -> tuple[str, str] | None:
    """The first (key, message) where `key -> rule` entries disagree with the catalogue."""
    # Keys are unique (a repeated YAML key is a YAML error), so once every key is the one its
    # rule reads, no rule can be configured twice.
    for key, rule in entries.items():
        expected = RULE_KEYS.get(rule)
        if expected is None:
            known = ", ".join(RULE_KEYS)
            return key, f"unknown rule {rule} (a target can configure {known})"
        if key != expected:
            return key, f"rule {rule} checks `{expected}`, not `{key}`"
    return None
