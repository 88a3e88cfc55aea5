"""Run the rules a target asks for on one resolved config, or on every path of a launch."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from cfglint.codes import CODES, severity_of
from cfglint.rules.base import Finding, LaunchContext, Rule, RuleContext
from cfglint.targets import Target
from cfglint.targets.model import KeyPolicy
from cfglint.types import Condition, LaunchView, LaunchWorld, ResolvedConfig, Span


def evaluate(
    config: ResolvedConfig,
    target: Target,
    rules: Sequence[Rule],
    launch: LaunchWorld | None = None,
) -> Iterator[Finding]:
    for rule in rules:
        if rule.check is None:
            continue
        found = target.policy_for(rule.code)
        if found is None and CODES[rule.code].scope == "every-target":
            # A fact about MMEngine: the rule reads the target's host facts, not a policy.
            found = _host_facts_policy(rule.code)
        if found is None:  # the target does not check this rule: it cannot fail there
            continue
        key, policy = found
        severity = severity_of(rule.code)
        for finding in rule.check(RuleContext(config, target, key, policy, launch)):
            if severity != "error" and finding.severity == "error":
                finding = replace(finding, severity=severity)
            if policy.assumes:
                finding = replace(finding, message=f"{finding.message} (assuming {policy.assumes})")
            yield finding


_HOST_FACTS_POLICIES: dict[str, tuple[str, KeyPolicy]] = {}


def _host_facts_policy(code: str) -> tuple[str, KeyPolicy]:
    # Asked for by every config for every such rule: one frozen policy per rule serves them all.
    policy = _HOST_FACTS_POLICIES.get(code)
    if policy is None:
        policy = _HOST_FACTS_POLICIES[code] = ("", KeyPolicy(rule=code))
    return policy


def seen_on_path(world: LaunchWorld, target: Target) -> Target:
    """The target as MMEngine sees the host on this path: with the vendor import in place,
    the variant the target file describes for it."""
    if world.vendor_imported and target.with_vendor_import is not None:
        return target.with_vendor_import
    return target


def evaluate_world(world: LaunchWorld, target: Target, rules: Sequence[Rule]) -> list[Finding]:
    seen = seen_on_path(world, target)
    findings: list[Finding] = []
    if world.config is not None:
        findings.extend(evaluate(world.config, seen, rules, world))
    for rule in rules:
        if rule.launch_check is None:
            continue
        found = seen.policy_for(rule.code)
        key, policy = found if found is not None else (None, None)
        findings.extend(rule.launch_check(LaunchContext(world, seen, target, policy, key)))
    return findings


def evaluate_view(view: LaunchView, target: Target, rules: Sequence[Rule]) -> list[Finding]:
    """Each finding once, with the branches that lead to it when not every path has it."""
    found: dict[tuple[object, ...], tuple[Finding, list[LaunchWorld]]] = {}
    for world in view.worlds:
        for finding in evaluate_world(world, target, rules):
            identity = (finding.code, _span(finding), finding.key, finding.needed_by)
            if identity not in found:
                found[identity] = (finding, [])
            if world not in found[identity][1]:
                found[identity][1].append(world)
    every = len(view.worlds)
    result = []
    for finding, worlds in found.values():
        if len(worlds) < every:
            finding = replace(finding, message=f"{finding.message} ({when(worlds)})")
        result.append(finding)
    return result


def when(worlds: Iterable[LaunchWorld]) -> str:
    """The branches every one of these paths takes, as a reader would say them."""
    paths = list(worlds)
    shared: list[Condition] = [
        condition
        for condition in paths[0].conditions
        if all(condition in w.conditions for w in paths)
    ]
    if not shared:
        return "on some paths through the entry script"
    return "when " + " and ".join(condition.describe() for condition in shared)


def _span(finding: Finding) -> Span | None:
    if finding.at is not None:
        return finding.at.span
    if finding.node is not None:
        return finding.node.origin.span
    return None
