"""One config checked on its own: the small frozen value that aggregation reads instead of the
resolved tree.

A resolved tree is large (hundreds of nodes, each with its origin); what the rest of a check
needs of it is small: the findings with their locations and fix intents, the files the
resolution read, the target, the top-level keys (engine/grouping.py). The same value is what a
worker process sends back (engine/pool.py) and what the result cache keeps per config
(cfglint/cache/configs.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cfglint import files
from cfglint.rules.base import Finding
from cfglint.types import (
    Caught,
    FixIntent,
    LeafOverride,
    LoadProblem,
    Notice,
    Severity,
    Span,
    pickled_by_fields,
)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Issue:
    """A finding of one config, with its place taken from the tree."""

    code: str
    message: str
    key: str
    # Where the value is written (or the entry script's line); None: about a key no file
    # writes, placed by aggregation (engine/grouping.py).
    span: Span | None
    chain: tuple[Path, ...]  # from the config to the file at `span`
    fix: FixIntent | None = None
    needed_by: str | None = None  # as Finding.needed_by
    severity: Severity = "error"
    # The override in the config itself that carries the fix (engine/leaf_override.py), None
    # when there is none: worked out here, while the tree is at hand, so that neither the
    # report's `[*]` nor fix placement needs the tree again.
    leaf_override: LeafOverride | None = None

    @property
    def leaf_fix(self) -> bool:
        return self.leaf_override is not None


def issue_of(finding: Finding, leaf_override: LeafOverride | None = None) -> Issue:
    if finding.at is not None:
        span: Span | None = finding.at.span
        chain = finding.at.chain
    elif finding.node is not None:
        span, chain = finding.node.origin.span, finding.node.origin.chain
    else:
        span, chain = None, ()
    return Issue(
        finding.code,
        finding.message,
        finding.key,
        span,
        chain,
        finding.fix,
        finding.needed_by,
        finding.severity,
        leaf_override,
    )


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ConfigOutcome:
    """What checking one config on its own gave. A config a launch covers is checked again
    through its launch (engine/launches.py); this outcome then only says how it resolved."""

    path: Path  # as the run names it
    # Every file its resolution read, itself first (for a failure: down to the one that failed).
    files: tuple[Path, ...]
    resolved: bool
    problems: tuple[LoadProblem, ...] = ()  # why it did not resolve
    # cfglint's own failure (an internal error) while resolving it, and while checking it:
    # reported (crash_log.report) where the command runs.
    load_internal: Caught | None = None
    check_internal: Caught | None = None
    fragment: bool = False  # no `model`: checked only through the configs inheriting it
    keys: frozenset[str] = frozenset()  # its top-level keys
    target: str | None = None
    # Why it has no target (an error with a UserError's text; `no_target`: it names none at
    # all).
    target_error: Notice | None = None
    no_target: bool = False
    issues: tuple[Issue, ...] = ()


class OutcomeCache(Protocol):
    """Where outcomes are kept between runs (cfglint/cache/configs.py)."""

    def recording(self) -> AbstractContextManager[None]:
        """While a check runs: what it reads is what its outcomes are stored with."""

    def lookup(self, path: Path, named: bool) -> ConfigOutcome | None:
        """The outcome stored for the config, while everything it was computed from reads the
        same (and the readers of `files` are told of those inputs); else None."""

    def store(self, outcome: ConfigOutcome, named: bool, depends: Sequence[files.Read]) -> None:
        """Keep the outcome, computed in this process just now. `depends`: files besides its
        own that the result depends on (target files, metafiles of `pkg::` bases)."""
