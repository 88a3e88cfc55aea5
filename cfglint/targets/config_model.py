"""A target as JSON Schema of a resolved config, for editors (`cfglint targets NAME --json-schema`).

Built from the target's data alone: each policy the target file writes, said in JSON Schema by the
rule that reads it (`Rule.schema`). Nothing here runs a rule, so tests can compare the schema with
`cfglint check` and catch either drifting from the other (tests/targets).
"""

from __future__ import annotations

from cfglint.rules import CHECK_RULES
from cfglint.rules.base import JsonSchema
from cfglint.targets.load import Target

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def rule_schemas(target: Target) -> dict[str, JsonSchema]:
    """Each rule the target configures, as JSON Schema for the target's policy."""
    schemas: dict[str, JsonSchema] = {}
    for rule in CHECK_RULES:
        found = target.policy_for(rule.code)
        if found is not None and rule.schema is not None:
            schemas[rule.code] = {
                "description": f"{rule.code}: {rule.summary} ({rule.url})",
                **rule.schema(found[1]),
            }
    return schemas


def json_schema(target: Target) -> JsonSchema:
    """The JSON Schema `cfglint targets NAME --json-schema` prints: a config (as
    `Config.to_dict()` gives it) is valid exactly when every rule with a schema passes."""
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": f"MMEngine config for target {target.name}",
        "description": target.description,
        "type": "object",
        "allOf": list(rule_schemas(target).values()),
    }
