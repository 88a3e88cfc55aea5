"""A target as a Pydantic model of a resolved config, and as JSON Schema for editors.

Both come from the target's policies and the rules that read them, so they agree with
`cfglint check`: the model runs the target's rules on the config it validates, and the JSON
Schema is each rule's own `schema` for its policy (tests/targets runs every rule example
through the rules and the exported schema and compares).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, create_model, model_validator

from cfglint.engine.evaluate import evaluate
from cfglint.rules import CHECK_RULES
from cfglint.rules.base import JsonSchema
from cfglint.targets.load import Target
from cfglint.types import (
    ConfigNode,
    DictNode,
    Origin,
    ResolvedConfig,
    ScalarNode,
    SequenceNode,
    Span,
)

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_PLAIN = Path("<config>")
_ORIGIN = Origin(Span(_PLAIN, 1, 1, 1, 1), (_PLAIN,))


def plain_config(data: Mapping[object, object]) -> ResolvedConfig:
    """A resolved config from plain Python data (what `Config.fromfile(...).to_dict()` gives)."""
    root = _node(data)
    assert isinstance(root, DictNode)
    return ResolvedConfig(_PLAIN, root, (_PLAIN,))


def _node(value: object) -> ConfigNode:
    if isinstance(value, Mapping):
        return DictNode({key: _node(item) for key, item in value.items()}, _ORIGIN)
    if isinstance(value, list | tuple):
        items = tuple(_node(item) for item in value)
        return SequenceNode(items, isinstance(value, tuple), _ORIGIN)
    return ScalarNode(value, _ORIGIN)


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


def _model_name(target: Target) -> str:
    parts = target.name.replace(".", "-").replace("_", "-").split("-")
    return "".join(part.capitalize() for part in parts) + "Config"


def _schema_extra(schema: dict[str, Any], model: type[Any]) -> None:
    schema.update(_schema_body(model.target))


class ResolvedConfigModel(BaseModel):
    """What every target's model shares: it accepts a resolved config exactly when
    `cfglint check` reports no error for it on the model's target (warnings, such as a custom
    wrapper type, pass), and its JSON Schema is the rules' own."""

    model_config = ConfigDict(extra="allow", json_schema_extra=_schema_extra)
    target: ClassVar[Target]

    @model_validator(mode="before")
    @classmethod
    def _check(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise ValueError("a config is a mapping of keys to values")
        problems = [
            f"{finding.code} {finding.message}"
            for finding in evaluate(plain_config(data), cls.target, CHECK_RULES)
            if finding.severity == "error"
        ]
        if problems:
            raise ValueError("; ".join(problems))
        return data


def config_model(target: Target) -> type[ResolvedConfigModel]:
    model = create_model(_model_name(target), __base__=ResolvedConfigModel)
    model.target = target
    return model


def _schema_body(target: Target) -> JsonSchema:
    return {
        "title": f"MMEngine config for target {target.name}",
        "description": target.description,
        "type": "object",
        "allOf": list(rule_schemas(target).values()),
    }


def json_schema(target: Target) -> JsonSchema:
    """The JSON Schema `cfglint targets NAME --json-schema` prints."""
    schema = config_model(target).model_json_schema()
    return {"$schema": JSON_SCHEMA_DIALECT, **schema}
