"""Building blocks for a rule's JSON Schema (`Rule.schema`): the same policy, said in JSON Schema.

A schema validates a resolved config as plain JSON. Each rule's schema must accept exactly the
configs its check passes, where JSON Schema can say it; tests/targets compare the two on every
rule example.
"""

from __future__ import annotations

import re

from cfglint.rules.base import JsonSchema
from cfglint.rules.type_names import is_type_key
from cfglint.rules.wrapper import (
    DDP_STRATEGY,
    DDP_WRAPPERS,
    FLEXIBLE_RUNNER,
    RUNNER_TYPE_KEY,
    STRATEGY_KEY,
    WRAPPER_KEY,
)
from cfglint.targets.model import KeyPolicy

# What `if value:` treats as false, in JSON terms (0 also matches 0.0).
FALSY: JsonSchema = {"enum": [None, False, 0, "", [], {}]}
EMPTY_LIST: JsonSchema = {"type": "array", "maxItems": 0}


def _registry_name(*names: str) -> JsonSchema:
    # A registry name may carry a scope prefix: 'mmengine.MMDistributedDataParallel'.
    return {"type": "string", "pattern": rf"^(.*\.)?({'|'.join(sorted(names))})$"}


IS_FLEXIBLE_RUNNER: JsonSchema = {
    "required": [RUNNER_TYPE_KEY],
    "properties": {RUNNER_TYPE_KEY: _registry_name(FLEXIBLE_RUNNER)},
}
# A FlexibleRunner's strategy is a DDPStrategy: named so, or absent (a distributed launch).
BUILDS_DDP_STRATEGY: JsonSchema = {
    "anyOf": [
        {"not": {"required": [STRATEGY_KEY]}},
        {
            "required": [STRATEGY_KEY],
            "properties": {
                STRATEGY_KEY: {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": _registry_name(DDP_STRATEGY)},
                }
            },
        },
    ]
}
# model_wrapper_cfg names a DDP wrapper: its `type` is one, or absent (MMEngine's default).
IS_DDP_WRAPPER: JsonSchema = {
    "type": "object",
    "anyOf": [
        {"not": {"required": ["type"]}},
        {"required": ["type"], "properties": {"type": _registry_name(*DDP_WRAPPERS)}},
    ],
}


def _all(*schemas: JsonSchema) -> JsonSchema:
    present = [schema for schema in schemas if schema]
    if len(present) == 1:
        return present[0]
    return {"allOf": present} if present else {}


def _any_of(values: tuple[object, ...] | list[object], by_name: bool) -> JsonSchema:
    """A value equal to one of `values`; with `by_name`, a string is compared by the registry
    name it builds (rules/type_names.py), as the check compares a `type`."""
    if not by_name:
        return {"enum": list(values)}
    names = [re.escape(value) for value in values if isinstance(value, str)]
    others = [value for value in values if not isinstance(value, str)]
    return {"anyOf": [*([_registry_name(*names)] if names else []), {"enum": others}]}


def accepted_values(policy: KeyPolicy, *also: JsonSchema, by_name: bool = False) -> JsonSchema:
    """The values `policy.value_ok` accepts, or any of `also`; `by_name`: the key is a `type`."""
    accepted: JsonSchema = {}
    if policy.allowed is not None:
        accepted = _any_of(policy.allowed, by_name)
    elif policy.forbidden is not None:
        accepted = {"not": _any_of(policy.forbidden, by_name)}
    if policy.forbidden_literal_list:
        accepted = _all(accepted, {"not": {"type": "array"}})
    if also:
        return {"anyOf": [accepted, *also]}
    return accepted


def absent_fails(policy: KeyPolicy) -> bool:
    """Whether MMEngine's value for an absent key is one the policy rejects."""
    return policy.has_default and not policy.value_ok(policy.default)


def at_key(key: str, value: JsonSchema, *, required: bool) -> JsonSchema:
    """A root schema holding `value` at a dotted key; `required`: every step must be there.

    A step that is not a dict counts as absent, as in the rules (keys.key_state).
    """
    parts = key.split(".")
    schema = value
    for depth in range(len(parts) - 1, -1, -1):
        level: JsonSchema = {"properties": {parts[depth]: schema}}
        if required:
            level["required"] = [parts[depth]]
            if depth > 0:
                level["type"] = "object"
        schema = level
    return schema


def at_wrapper(wrapper: JsonSchema, *, required: bool) -> JsonSchema:
    """`wrapper` for the wrapper config the Runner uses: `model_wrapper_cfg`, or for a
    FlexibleRunner building a DDPStrategy, `strategy.model_wrapper` (FlexibleRunner never
    reads model_wrapper_cfg). `required`: the wrapper config must be written out."""
    runner: JsonSchema = {"properties": {WRAPPER_KEY: wrapper}}
    strategy: JsonSchema = {
        "properties": {STRATEGY_KEY: {"properties": {"model_wrapper": wrapper}}}
    }
    if required:
        runner["required"] = [WRAPPER_KEY]
        strategy = {
            "required": [STRATEGY_KEY],
            "properties": {
                STRATEGY_KEY: {
                    "type": "object",
                    "required": ["model_wrapper"],
                    "properties": {"model_wrapper": wrapper},
                }
            },
        }
    return {
        "if": IS_FLEXIBLE_RUNNER,
        "then": {"if": BUILDS_DDP_STRATEGY, "then": strategy},
        "else": runner,
    }


def in_ddp_wrapper(schema: JsonSchema) -> JsonSchema:
    """`schema` applies to the wrapper config when it configures a DDP wrapper."""
    return at_wrapper({"if": IS_DDP_WRAPPER, "then": schema}, required=False)


def value_at_key(key: str, policy: KeyPolicy, *harmless: JsonSchema) -> JsonSchema:
    """The schema of a rule built on values.check_value: the policy at the key, MMEngine's
    default when it is absent, and the `harmless` values that are never reported."""
    accepted = accepted_values(policy, *harmless, by_name=is_type_key(key))
    return at_key(key, accepted, required=absent_fails(policy))
