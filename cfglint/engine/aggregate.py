"""Merge per-config findings into violations: one per (code, location, target)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cfglint.engine.inheritors import real
from cfglint.rules.base import Finding
from cfglint.types import FixIntent, LoadProblem, Severity, Span, Violation


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


class Aggregator:
    def __init__(self) -> None:
        self._groups: dict[_Identity, _Group] = {}

    def add_findings(self, config: Path, target: str, findings: Iterable[Finding]) -> None:
        for finding in findings:
            chain: tuple[Path, ...]
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

    def violations(self) -> list[Violation]:
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
