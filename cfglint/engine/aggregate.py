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
from cfglint.reprs import exact_repr
from cfglint.rules.base import Finding
from cfglint.settings import installed_code
from cfglint.types import FixIntent, LoadProblem, ResolvedConfig, Severity, Span, Violation


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


def file_span(path: Path) -> Span:
    return Span(path, 1, 1, 1, 1)


# A CL906 is one per rule that needs the value: each can be selected and suppressed on its own.
_Identity = tuple[str, Span, str | None, str | None]
# Findings about a key no file writes, held back per (code, target, needed_by).
_Pool = tuple[str, str, str | None]


class Aggregator:
    def __init__(self) -> None:
        self._groups: dict[_Identity, _Group] = {}
        self._lacking: dict[_Pool, dict[Path, tuple[Path, Finding, tuple[Path, ...]]]] = {}
        self._readers: dict[Path, set[Path]] = {}
        self._reads: dict[Path, tuple[Path, ...]] = {}
        # Each checked config's target and top-level keys.
        self._sets: dict[Path, tuple[str, frozenset[str]]] = {}

    def add_findings(
        self,
        config: Path,
        target: str,
        findings: Iterable[Finding],
        resolved: ResolvedConfig | None = None,
    ) -> None:
        """``resolved``: the config as checked, when findings about a key it lacks may be
        reported at a file it shares with other configs (None: a launch, whose paths through
        the entry script place such findings at the config itself)."""
        read = None
        if resolved is not None:
            read = tuple(dict.fromkeys(real(path) for path in resolved.files))
            self._reads[real(config)] = read
            self._sets[real(config)] = (target, frozenset(map(str, resolved.root.entries)))
            for path in read:
                self._readers.setdefault(path, set()).add(real(config))
        for finding in findings:
            chain: tuple[Path, ...]
            if read is not None and finding.at is None and finding.node is None:
                pool = (finding.code, target, finding.needed_by)
                self._lacking.setdefault(pool, {})[real(config)] = (config, finding, read)
                continue
            if finding.at is not None:
                span, chain = finding.at.span, finding.at.chain
            elif finding.node is None:
                span, chain = file_span(config), (config,)
            else:
                span, chain = finding.node.origin.span, finding.node.origin.chain
            group = self._group(
                finding.code, finding.message, span, target, chain, finding.needed_by
            )
            group.key = finding.key
            group.severity = finding.severity
            if group.fix_intent is None:
                group.fix_intent = finding.fix
            group.configs[config] = None

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
                Lacking(key, _wants(finding), read) for key, (_, finding, read) in entries.items()
            ]
            top = _top_key(next(iter(entries.values()))[1])

            def unaffected(reader: Path, target: str = target, top: str = top) -> bool:
                # A config of the same target that does not set the key gets it unchanged
                # from the site: one the rule passes without it (a FlexibleRunner config).
                facts = self._sets.get(reader)
                return facts is not None and facts[0] == target and top not in facts[1]

            checked = Checked(self._readers, self._reads, unaffected)
            for site, configs in choose_sites(lacking, checked, _eligible).items():
                shared = len(configs) > 1
                for config in configs:
                    path, finding, _read = entries[config]
                    span = site_span(site) if shared else file_span(path)
                    group = self._group(
                        code, finding.message, span, target, (span.path,), needed_by
                    )
                    group.key = finding.key
                    group.severity = finding.severity
                    if group.fix_intent is None:
                        group.fix_intent = finding.fix
                    group.configs[path] = None
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


def _wants(finding: Finding) -> str:
    """What the config needs written: configs needing the same edit may share it."""
    fix = finding.fix
    changes = None if fix is None else [(change.key, change.value) for change in fix.changes]
    return exact_repr((finding.message, changes))


def _top_key(finding: Finding) -> str:
    """The top-level key a finding about a missing key adds."""
    if finding.fix is not None and finding.fix.changes:
        return finding.fix.changes[0].key[0]
    return (finding.key or "").split(".")[0]


def _eligible(path: Path) -> bool:
    # Installed code (a `pkg::` base) is never edited; fix placement checks the rest (the
    # project's bounds, settings, permissions) and falls back to the leaves.
    return not installed_code(path.parts[:-1])
