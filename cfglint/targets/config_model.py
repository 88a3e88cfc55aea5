"""Turn a target into a Pydantic model of the config keys it checks.

The model validates a resolved config's plain values and is what
`cfglint targets NAME --json-schema` exports for editors.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from cfglint.targets.load import Target


def config_model(target: Target) -> type[BaseModel]:
    tree: dict[str, Any] = {}
    for key, policy in target.keys.items():
        node = tree
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = policy
    model_name = "".join(part.capitalize() for part in target.name.replace(".", "-").split("-"))
    return _build(f"{model_name}Config", tree)


def _build(name: str, tree: dict[str, Any]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for key, sub in tree.items():
        if isinstance(sub, dict):
            fields[key] = (_build(f"{name}_{key}", sub) | None, None)
        else:
            annotation = sub.value_type()
            default = ... if sub.required else (sub.default if sub.has_default else None)
            fields[key] = (annotation, default)
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="allow"), **fields)
    return model


def json_schema(target: Target) -> dict[str, Any]:
    schema = config_model(target).model_json_schema()
    schema["title"] = f"MMEngine config for target {target.name}"
    schema["description"] = target.description
    return schema
