"""A target's exported JSON Schema and Pydantic model say what its rules say.

Every rule example (and a few configs from review) goes through the rules, through the schema
`cfglint targets NAME --json-schema` prints, and through the Pydantic model; all three must agree
on every rule, wherever JSON can hold the config (no value cfglint cannot evaluate statically).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import run_cli
from pydantic import ValidationError

from cfglint.engine.evaluate import evaluate
from cfglint.loader import Loader
from cfglint.rules import ALL_RULES, CHECK_RULES
from cfglint.rules.base import examples_in
from cfglint.targets import TargetRegistry
from cfglint.targets.config_model import config_model, plain_config, rule_schemas
from cfglint.types import ResolvedConfig, UnknownValueError, to_python

REGISTRY = TargetRegistry()
TARGETS = REGISTRY.names()

# Configs the review found the first schema got wrong, as plain data.
REVIEW_CASES: list[dict[str, Any]] = [
    {"launcher": "pytorch"},
    {"model_wrapper_cfg": None},
    {"model_wrapper_cfg": {"device_ids": [0]}},
    {"model_wrapper_cfg": {"type": "MMFullyShardedDataParallel"}},
    {"env_cfg": {"dist_cfg": {"backend": "gloo"}, "cudnn_benchmark": None}},
    {"env_cfg": {"cudnn_benchmark": 0}, "model_wrapper_cfg": {"device_ids": []}},
    {"runner_type": "FlexibleRunner", "strategy": {"type": "DeepSpeedStrategy"}},
    {"model_wrapper_cfg": {"type": "mmengine.MMDistributedDataParallel"}},
    {"model_wrapper_cfg": {"type": "MyCustomDDP"}},
    {"model_wrapper_cfg": {"device_ids": None, "output_device": 0}},
    {"env_cfg": "not a dict", "model_wrapper_cfg": {"device_ids": [0, 1]}},
    {"env_cfg": {"dist_cfg": 3}, "model_wrapper_cfg": "not a dict"},
    {
        "env_cfg": {"dist_cfg": {"backend": "nccl"}, "cudnn_benchmark": True},
        "model_wrapper_cfg": {"type": "DistributedDataParallel", "device_ids": None},
    },
]
EXAMPLE_TEXTS = sorted({example.config for _, example, _ in examples_in(ALL_RULES)})
CONFIGS: list[dict[str, Any]] = [*REVIEW_CASES, *({"text": text} for text in EXAMPLE_TEXTS)]
CASES = [(target, config) for target in TARGETS for config in CONFIGS]


def _plain(tmp_path: Path, case: dict[str, Any]) -> dict[str, Any] | None:
    """The config as JSON data, or None where JSON cannot hold it."""
    if "text" not in case:
        return case
    path = tmp_path / "leaf_config.py"
    path.write_text(case["text"], encoding="utf-8")
    loaded = Loader(environ={}).load(path)
    if not isinstance(loaded, ResolvedConfig):
        return None
    try:
        data = to_python(loaded.root)
        plain: dict[str, Any] = json.loads(json.dumps(data))
    except (UnknownValueError, TypeError):
        return None
    return plain


def _failing(target_name: str, data: dict[str, Any]) -> set[str]:
    target = REGISTRY.get(target_name)
    findings = evaluate(plain_config(data), target, CHECK_RULES)
    return {finding.code for finding in findings if finding.severity == "error"}


@pytest.mark.parametrize(
    ("target_name", "case"), CASES, ids=[f"{t}-{json.dumps(c)[:60]}" for t, c in CASES]
)
def test_rules_schema_and_model_agree(
    tmp_path: Path, target_name: str, case: dict[str, Any]
) -> None:
    data = _plain(tmp_path, case)
    if data is None:
        pytest.skip("not expressible as JSON: an unknown value or a load failure")
    failing = _failing(target_name, data)
    target = REGISTRY.get(target_name)
    for code, schema in rule_schemas(target).items():
        valid = jsonschema.Draft202012Validator(schema).is_valid(data)
        assert valid is (code not in failing), code
    try:
        config_model(target).model_validate(data)
        model_ok = True
    except ValidationError:
        model_ok = False
    assert model_ok is (not failing)


@pytest.mark.parametrize("target_name", TARGETS)
def test_exported_schema_is_valid_json_schema_and_matches_the_rules(target_name: str) -> None:
    result = run_cli("targets", target_name, "--json-schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for data in REVIEW_CASES:
        assert validator.is_valid(data) is (not _failing(target_name, data)), data
