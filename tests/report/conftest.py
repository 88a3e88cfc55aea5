"""Fixtures: the sample config tree, and the SARIF and rdjson schema validators."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import SHARED
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4
from report.sample_tree import Sample, build_sample


@pytest.fixture
def sample(tmp_path: Path) -> Sample:
    return build_sample(tmp_path)


def _shared_data(name: str) -> Path:
    """A file or folder of the team's shared `data/` (the SARIF and rdjson schemas): beside the
    checkout as `../shared`, or where CFGLINT_SHARED points. Missing is a failure that says so,
    never a skip: the schema validation is what these tests are for."""
    path = Path(os.environ.get("CFGLINT_SHARED", SHARED)) / "data" / name
    if not path.exists():
        pytest.fail(
            f"{path} not found: put the shared folder beside the checkout (../shared) or set "
            "CFGLINT_SHARED to it",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def validate_sarif() -> Callable[[object], None]:
    schema = json.loads(_shared_data("sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    return validator.validate


@pytest.fixture(scope="session")
def validate_rdjson() -> Callable[[object], None]:
    folder = _shared_data("rdjson")
    resources = []
    for path in sorted(folder.glob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resource = Resource.from_contents(contents, default_specification=DRAFT4)
        resources.append((path.name, resource))
    registry: Registry[Any] = Registry().with_resources(resources)
    schema = registry["DiagnosticResult.json"].contents
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, registry=registry)
    return validator.validate
