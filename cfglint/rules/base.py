"""What a rule is: a code, its documentation, VALID/INVALID examples, and a check."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from cfglint.codes import CODES, UNKNOWN_VALUE
from cfglint.reprs import brief
from cfglint.targets import Target
from cfglint.targets.model import KeyPolicy
from cfglint.types import (
    REMOVE,
    Applicability,
    ConfigNode,
    FixIntent,
    KeyChange,
    LaunchWorld,
    Origin,
    ResolvedConfig,
    Severity,
    UnknownNode,
)

JsonSchema = dict[str, Any]

DOCS_URL = "https://cfglint.readthedocs.io/en/latest/rules/{code}/"

UNKNOWN_VALUE_CODE = UNKNOWN_VALUE


@dataclass(frozen=True, slots=True)
class Example:
    """A one-file leaf config and the target it is checked for; with `entry`, launched by that
    entry script (`python entry.py config.py` plus `arguments`)."""

    target: str
    config: str
    entry: str | None = None
    arguments: tuple[str, ...] = ()
    # For an INVALID example, what the user sees and what to write instead, all checked by
    # tests/rules and shown on the rule's page: where `cfglint check` reports the finding
    # (`config.py:2:38`, or `entry.py:9:1` for a finding in the entry script) and its message;
    # the file at `location` as `cfglint fix` leaves it (`fixed`) or, for a finding the rule
    # cannot fix, written by hand so that the rule passes (`instead`).
    message: str | None = None
    location: str | None = None
    fixed: str | None = None
    instead: str | None = None

    @property
    def file(self) -> str:
        """The file the finding is in: `config.py` or `entry.py`."""
        return (self.location or "config.py").split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class RuleContext:
    config: ResolvedConfig
    target: Target
    key: str  # the config key the target's policy names for this rule
    policy: KeyPolicy
    # The path through the entry script that hands this config to the Runner (launch view).
    launch: LaunchWorld | None = None


@dataclass(frozen=True, slots=True)
class LaunchContext:
    """One path through a launch's entry script, for the rules that read the script's code."""

    world: LaunchWorld
    target: Target  # as MMEngine sees the host on this path (with the vendor import or not)
    declared: Target  # the config's target as its file names it
    policy: KeyPolicy | None  # the target's policy for the rule, when it has a key
    key: str | None


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule's verdict on one config. `node` None means the config file as a whole."""

    code: str
    message: str
    key: str
    node: ConfigNode | None
    fix: FixIntent | None = None
    # Where a finding about code (not a config value) is: a line of the entry script.
    at: Origin | None = None
    # For a CL906: the rule that needed the value (its selection and noqa apply to it too).
    needed_by: str | None = None
    severity: Severity = "error"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    summary: str
    what: str  # what it checks (Markdown)
    why: str  # why it breaks training, with the real error text where there is one
    fix_doc: str  # what the fix writes
    valid: tuple[Example, ...]
    invalid: tuple[Example, ...]
    # None: the loader reports this code (CL9xx), or only the entry script is read.
    check: Callable[[RuleContext], Iterable[Finding]] | None
    # Whether targets can give it a fix (each target file says whether that fix is safe).
    fixable: bool = False
    # The rule as JSON Schema for a target's policy: the configs the schema accepts are those
    # the check passes (where JSON Schema can say it), for `cfglint targets NAME --json-schema`.
    schema: Callable[[KeyPolicy], JsonSchema] | None = None
    # A check on what a launch's entry script does (its imports, calls, DDP wrappers).
    launch_check: Callable[[LaunchContext], Iterable[Finding]] | None = None
    # Why the fix is safe, or unsafe (the page's "Fix safety"); empty for a rule without one.
    fix_safety: str = ""

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code)

    @property
    def severity(self) -> Severity:
        """From the codes table (cfglint/codes.py), as every report reads it."""
        return CODES[self.code].severity


def policy_applicability(ctx: RuleContext) -> Applicability:
    """Whether the target file marks this rule's fix safe (a fix it does not describe is)."""
    fix = ctx.policy.fix
    return Applicability.SAFE if fix is None or fix.safe else Applicability.UNSAFE


def fix_from_policy(ctx: RuleContext, message: str) -> FixIntent | None:
    """The fix the target file asks for at the rule's key."""
    fix = ctx.policy.fix
    if fix is None:
        return None
    value = REMOVE if fix.remove else fix.value
    parts = tuple(ctx.key.split("."))
    return FixIntent(message, (KeyChange(parts, value),), policy_applicability(ctx))


def unknown_finding(ctx: RuleContext, code: str, node: UnknownNode, key: str) -> Finding:
    return Finding(
        UNKNOWN_VALUE_CODE,
        f"cannot evaluate `{brief(node.source, 30)}` ({node.reason}); {code} needs `{key}`",
        key,
        node,
        needed_by=code,
    )


def examples_in(rules: Iterable[Rule]) -> Iterable[tuple[Rule, Example, bool]]:
    for rule in rules:
        for example in rule.valid:
            yield rule, example, True
        for example in rule.invalid:
            yield rule, example, False
