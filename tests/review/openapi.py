"""GitHub's official OpenAPI description (npm's @octokit/openapi, installed by
scripts/bootstrap.sh): validators for each operation's request body and responses, and
the smallest valid object of a schema, from which the fake server builds what it returns."""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

_DEFAULT_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cfglint-octokit"
SPEC = (
    Path(os.environ.get("CFGLINT_OCTOKIT_DIR", _DEFAULT_DIR))
    / "node_modules/@octokit/openapi/generated/api.github.com.json"
)
_ROOT = "urn:github-openapi"


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema: the schema, or null."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items()}
    if converted.get("nullable") is True:
        del converted["nullable"]
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


class GitHubOpenApi:
    def __init__(self, path: Path) -> None:
        raw = json.loads(path.read_text(encoding="utf-8"))
        self.version = raw["info"]["version"]
        self.spec = {"paths": raw["paths"], "components": _json_schema(raw["components"])}
        resource = Resource.from_contents(self.spec, default_specification=DRAFT4)
        self._registry: Registry[Any] = Registry().with_resource(_ROOT, resource)

    def operation(self, method: str, template: str) -> dict[str, Any]:
        return self.spec["paths"][template][method.lower()]  # type: ignore[no-any-return]

    def request_schema(self, method: str, template: str) -> Any:
        body = self.operation(method, template)["requestBody"]
        return _json_schema(body["content"]["application/json"]["schema"])

    def response_schema(self, method: str, template: str, status: int) -> Any:
        """The documented schema for this status; GitHub's `basic-error` for an error status
        the operation does not document (a 502, a 429)."""
        responses = self.operation(method, template)["responses"]
        response = responses.get(str(status))
        if response is None:
            if status < 400:
                raise AssertionError(f"{method} {template}: {status} is not documented")
            return {"$ref": "#/components/schemas/basic-error"}
        if "$ref" in response:
            response = self._pointer(response["$ref"])
        content = response.get("content")
        if not content:
            return None  # no body (204)
        return _json_schema(content["application/json"]["schema"])

    def validate(self, schema: Any, instance: Any) -> None:
        """Raises jsonschema.ValidationError. `$ref`s resolve into the whole description."""
        rooted = {"allOf": [schema]} if not isinstance(schema, dict) else schema
        validator = jsonschema.Draft4Validator(
            _rebased(rooted), registry=self._registry, format_checker=None
        )
        validator.validate(instance)

    def example(self, schema: Any, **overrides: Any) -> Any:
        """The smallest instance of `schema`: required properties only, nulls where allowed."""
        return _merge(self._smallest(schema), overrides)

    def example_of(self, name: str, **overrides: Any) -> Any:
        return self.example({"$ref": f"#/components/schemas/{name}"}, **overrides)

    def _pointer(self, ref: str) -> Any:
        node: Any = self.spec
        for part in ref.removeprefix("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def _smallest(self, schema: Any) -> Any:
        if "$ref" in schema:
            return self._smallest(self._pointer(schema["$ref"]))
        if "anyOf" in schema or "oneOf" in schema:
            options = schema.get("anyOf") or schema["oneOf"]
            if {"type": "null"} in options:
                return None
            return self._smallest(options[0])
        if "allOf" in schema:
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged.update(self._smallest(part))
            return merged
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            properties = schema.get("properties", {})
            return {name: self._smallest(properties[name]) for name in schema.get("required", [])}
        if kind == "array":
            return []
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.0
        if kind == "boolean":
            return False
        if kind == "string":
            return _STRING_FORMATS.get(schema.get("format"), "x")
        return None


_STRING_FORMATS = {
    "date-time": "2025-01-01T00:00:00Z",
    "uri": "https://github.invalid/x",
    "email": "x@example.invalid",
}


def _rebased(schema: dict[str, Any]) -> dict[str, Any]:
    """`#/components/...` inside `schema` resolves in the whole description."""
    text = json.dumps(schema).replace('"$ref": "#/', f'"$ref": "{_ROOT}#/')
    return json.loads(text)  # type: ignore[no-any-return]


def _merge(base: Any, overrides: dict[str, Any]) -> Any:
    if not overrides:
        return base
    merged = copy.deepcopy(base)
    merged.update(overrides)
    return merged


@cache
def github_openapi() -> GitHubOpenApi:
    if not SPEC.exists():
        pytest.fail(
            f"{SPEC} not found: run ./scripts/bootstrap.sh (it installs @octokit/openapi with "
            "npm), or point CFGLINT_OCTOKIT_DIR at a folder holding it",
            pytrace=False,
        )
    return GitHubOpenApi(SPEC)
