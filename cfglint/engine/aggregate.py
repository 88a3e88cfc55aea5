"""Merge per-config findings into violations: one per (code, location, target).

A finding about a key no file writes is held back until every config is in, then reported at
the site the configs lacking it share (engine/grouping.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cfglint.engine.grouping import Checked, Lacking, choose_sites, site_span
from cfglint.engine.inheritors import real
from cfglint.engine.outcome import ConfigOutcome, Issue, issue_of
from cfglint.reprs import exact_repr
from cfglint.rules.base import Finding
from cfglint.settings import installed_code
from cfglint.types import FixIntent, LeafOverride, LoadProblem, Severity, Span, Violation


@dataclass
class _Group:
    code: str
    message: str
    span: Span
    target: str | None
    key: str | None
    fix_intent: FixIntent | None
    chain: tuple[Path, ...]
    needed_by: str | None = None
    severity: Severity = "error"
    configs: dict[Path, None] = field(default_factory=dict)
    # Every config's own check found an override in the config carrying this fix.
    leaf_fix: bool = True
    # Those overrides, per config whose check found one for this fix.
    overrides: dict[Path, LeafOverride] = field(default_factory=dict)

    def take(self, config: Path, issue: Issue) -> None:
        self.key = issue.key
        self.severity = issue.severity
        if self.fix_intent is None:
            self.fix_intent = issue.fix
        same_fix = issue.fix == self.fix_intent
        self.leaf_fix = self.leaf_fix and issue.leaf_fix and same_fix
        if issue.leaf_override is not None and same_fix:
            self.overrides[config] = issue.leaf_override
        self.configs[config] = None


def file_span(path: Path) -> Span:
    return Span(path, 1, 1, 1, 1)


# A CL906 is one per rule that needs the value: each can be selected and suppressed on its own.
ViolationKey = tuple[str, Span, str | None, str | None]
# Findings about a key no file writes, held back per (code, target, needed_by).
_Pool = tuple[str, str, str | None]


class Aggregator:
    def __init__(self) -> None:
        self._groups: dict[ViolationKey, _Group] = {}
        self._lacking: dict[_Pool, dict[Path, tuple[Path, Issue, tuple[Path, ...]]]] = {}
        self._readers: dict[Path, set[Path]] = {}
        self._reads: dict[Path, tuple[Path, ...]] = {}
        # Each checked config's target and top-level keys.
        self._sets: dict[Path, tuple[str, frozenset[str]]] = {}

    def add_outcome(self, outcome: ConfigOutcome) -> None:
        """The findings of a config checked on its own. A finding about a key it lacks may be
        reported at a file it shares with other configs."""
        assert outcome.target is not None
        config = outcome.path
        real_config = real(config)
        read = tuple(dict.fromkeys(map(real, outcome.files)))
        self._reads[real_config] = read
        self._sets[real_config] = (outcome.target, outcome.keys)
        for path in read:
            self._readers.setdefault(path, set()).add(real_config)
        self._add_issues(config, outcome.target, outcome.issues, read)

    def add_findings(self, config: Path, target: str, findings: Iterable[Finding]) -> None:
        """The findings of a launch: its paths through the entry script place a finding about
        a key the config lacks at the config itself."""
        self._add_issues(config, target, [issue_of(finding) for finding in findings], None)

    def _add_issues(
        self,
        config: Path,
        target: str,
        issues: Iterable[Issue],
        read: tuple[Path, ...] | None,
    ) -> None:
        for issue in issues:
            chain: tuple[Path, ...]
            if issue.span is None:
                if read is not None:
                    pool = (issue.code, target, issue.needed_by)
                    self._lacking.setdefault(pool, {})[real(config)] = (config, issue, read)
                    continue
                span, chain = file_span(config), (config,)
            else:
                span, chain = issue.span, issue.chain
            group = self._group(issue.code, issue.message, span, target, chain, issue.needed_by)
            group.take(config, issue)

    def add_problems(self, config: Path, problems: Iterable[LoadProblem]) -> None:
        for problem in problems:
            group = self._group(problem.code, problem.message, problem.span, None, (config,))
            group.configs[config] = None

    def _group(
        self,
        code: str,
        message: str,
        span: Span,
        target: str | None,
        chain: tuple[Path, ...],
        needed_by: str | None = None,
    ) -> _Group:
        # A base reached through a symlinked folder is one file: one diagnostic, shown with the
        # path the first config reached it by.
        identity = (code, span._replace(path=real(span.path)), target, needed_by)
        if identity not in self._groups:
            self._groups[identity] = _Group(
                code, message, span, target, None, None, chain, needed_by
            )
        return self._groups[identity]

    def _place_lacking(self) -> None:
        for (code, target, needed_by), entries in self._lacking.items():
            lacking = [
                Lacking(key, _wants(issue), read) for key, (_, issue, read) in entries.items()
            ]
            top = _top_key(next(iter(entries.values()))[1])

            def unaffected(reader: Path, target: str = target, top: str = top) -> bool:
                # A config of the same target that does not set the key gets it unchanged
                # from the site: one the rule passes without it (a FlexibleRunner config).
                facts = self._sets.get(reader)
                return facts is not None and facts[0] == target and top not in facts[1]

            checked = Checked(self._readers, self._reads, unaffected)
            for site, configs in choose_sites(lacking, checked, _eligible).items():
                # A site is read (and parsed) once, not once for each config it is the site of.
                at_site = site_span(site) if len(configs) > 1 else None
                for config in configs:
                    path, issue, _read = entries[config]
                    span = at_site or file_span(path)
                    group = self._group(code, issue.message, span, target, (span.path,), needed_by)
                    group.take(path, issue)
        self._lacking.clear()

    def violations(self) -> list[Violation]:
        self._place_lacking()
        result = []
        for group in self._groups.values():
            configs = tuple(sorted(group.configs))
            message = group.message
            result.append(
                Violation(
                    code=group.code,
                    message=message,
                    span=group.span,
                    target=group.target,
                    configs=configs,
                    key=group.key,
                    fix_intent=group.fix_intent,
                    severity=group.severity,
                    chain=group.chain,
                    needed_by=group.needed_by,
                )
            )
        return sorted(result, key=lambda v: (v.span, v.code, v.target or "", v.needed_by or ""))

    def leaf_fixes(self) -> frozenset[ViolationKey]:
        """The violations (by `violation_key`, once `violations` placed them all) whose fix
        each config's own check could write as an override in the config itself."""
        return frozenset(
            identity
            for identity, group in self._groups.items()
            if group.leaf_fix and group.fix_intent is not None
        )

    def leaf_overrides(self) -> dict[ViolationKey, dict[Path, LeafOverride]]:
        """Per violation (as `leaf_fixes`), the override each config's own check found for
        its fix in the config itself, by config."""
        return {
            identity: group.overrides
            for identity, group in self._groups.items()
            if group.overrides and group.fix_intent is not None
        }


def violation_key(violation: Violation) -> ViolationKey:
    return (
        violation.code,
        violation.span._replace(path=real(violation.span.path)),
        violation.target,
        violation.needed_by,
    )


def _wants(issue: Issue) -> str:
    """What the config needs written: configs needing the same edit may share it."""
    fix = issue.fix
    changes = None if fix is None else [(change.key, change.value) for change in fix.changes]
    return exact_repr((issue.message, changes))


def _top_key(issue: Issue) -> str:
    """The top-level key a finding about a missing key adds."""
    if issue.fix is not None and issue.fix.changes:
        return issue.fix.changes[0].key[0]
    return (issue.key or "").split(".")[0]


def _eligible(path: Path) -> bool:
    # Installed code (a `pkg::` base) is never edited; fix placement checks the rest (the
    # project's bounds, settings, permissions) and falls back to the leaves.
    return not installed_code(path.parts[:-1])
