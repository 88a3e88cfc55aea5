"""Run the rules a target asks for on one resolved config."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from cfglint.rules.base import Finding, Rule, RuleContext
from cfglint.targets import Target
from cfglint.types import ResolvedConfig


def evaluate(config: ResolvedConfig, target: Target, rules: Sequence[Rule]) -> Iterator[Finding]:
    for rule in rules:
        if rule.check is None:
            continue
        found = target.policy_for(rule.code)
        if found is None:  # the target does not check this rule: it cannot fail there
            continue
        key, policy = found
        yield from rule.check(RuleContext(config, target, key, policy))
