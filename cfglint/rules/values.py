"""The check shared by rules that compare one key's value with the target's policy."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cfglint.rules.base import Finding, RuleContext, fix_from_policy, unknown_finding
from cfglint.rules.keys import Absent, Present, Unknown, key_state
from cfglint.rules.type_names import is_type_key, registry_name
from cfglint.types import UnknownValueError, to_python

Describe = Callable[[RuleContext, object, bool], str]


def allowed_text(ctx: RuleContext) -> str:
    policy = ctx.policy
    if policy.allowed is not None:
        return " or ".join(repr(value) for value in policy.allowed)
    forbidden = ", ".join(repr(value) for value in policy.forbidden or ())
    return f"anything but {forbidden}"


def check_value(
    ctx: RuleContext,
    code: str,
    describe: Describe,
    fix_message: str,
    harmless: Callable[[object], bool] | None = None,
) -> Iterator[Finding]:
    """Report the key's value (or MMEngine's default when absent) if the target rejects it.

    `describe(ctx, value, is_default)` writes the message; a value `harmless` accepts is never
    reported (what MMEngine or PyTorch treat as "not set").
    """
    state = key_state(ctx.config.root, ctx.key)
    if isinstance(state, Unknown):
        yield unknown_finding(ctx, code, state.node, ctx.key)
        return
    if isinstance(state, Absent):
        policy = ctx.policy
        if policy.has_default and not policy.value_ok(policy.default):
            yield Finding(
                code,
                describe(ctx, policy.default, True),
                ctx.key,
                state.anchor,
                fix_from_policy(ctx, fix_message),
            )
        return
    assert isinstance(state, Present)
    try:
        value = to_python(state.node)
    except UnknownValueError as error:
        yield unknown_finding(ctx, code, error.node, ctx.key)
        return
    # A `type` is compared by the name it builds: a scope prefix and an imported class name
    # the same registry entry as the bare name (rules/type_names.py).
    compared = value
    if is_type_key(ctx.key):
        name = registry_name(value)
        compared = value if name is None else name
    if not ctx.policy.value_ok(compared) and not (harmless is not None and harmless(value)):
        yield Finding(
            code,
            describe(ctx, value, False),
            ctx.key,
            state.node,
            fix_from_policy(ctx, fix_message),
        )
