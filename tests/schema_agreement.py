"""Compare a target's JSON Schema (built from the target file's data) with `cfglint check`'s
rules on one resolved config: shared by the fast schema test and the corpus one."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from cfglint.engine.evaluate import evaluate
from cfglint.rules import CHECK_RULES
from cfglint.targets import Target
from cfglint.targets.config_model import rule_schemas
from cfglint.types import ResolvedConfig, UnknownValueError, to_python


def plain_data(config: ResolvedConfig) -> dict[str, Any] | None:
    """The config as JSON data (what `Config.to_dict()` and a JSON dump give), or None where
    JSON cannot hold it (a value cfglint cannot evaluate statically, a non-JSON value)."""
    try:
        data: dict[str, Any] = json.loads(json.dumps(to_python(config.root)))
    except (UnknownValueError, TypeError, ValueError):
        return None
    return data


def check_failures(config: ResolvedConfig, target: Target) -> set[str]:
    """The codes the check reports as errors for this config on this target."""
    return {
        finding.code
        for finding in evaluate(config, target, CHECK_RULES)
        if finding.severity == "error"
    }


def disagreements(config: ResolvedConfig, target: Target) -> list[str]:
    """Each rule (with a schema on this target) whose schema and check disagree on the config."""
    data = plain_data(config)
    assert data is not None, "compare only configs JSON can hold"
    failing = check_failures(config, target)
    found = []
    for code, schema in rule_schemas(target).items():
        schema_ok = jsonschema.Draft202012Validator(schema).is_valid(data)
        if schema_ok is (code in failing):
            found.append(f"{code}: schema says {'valid' if schema_ok else 'invalid'}")
    return found
