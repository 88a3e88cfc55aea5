"""A target's exported JSON Schema says what `cfglint check` says.

The schema is built from the target file's data (each policy, said in JSON Schema by the rule
reading it); the check runs the rules' code. Every rule example and the configs a review found
the first schema got wrong are written as config files, resolved by the loader and checked for
every target, and the schema's verdict on the resolved config (as `Config.to_dict()` would give
it) must match the check's, rule by rule. tests/targets/test_schema_corpus.py does the same on
the real corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import run_cli
from schema_agreement import check_failures, disagreements, plain_data

from cfglint.loader import Loader
from cfglint.rules import ALL_RULES
from cfglint.rules.base import examples_in
from cfglint.targets import TargetRegistry
from cfglint.targets.config_model import rule_schemas
from cfglint.types import ResolvedConfig

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


def _as_config_text(data: dict[str, Any]) -> str:
    # A .py config with one assignment per key: what a user would write for this data.
    return "".join(f"{key} = {value!r}\n" for key, value in data.items())


EXAMPLE_TEXTS = sorted({example.config for _, example, _ in examples_in(ALL_RULES)})
TEXTS = [*(_as_config_text(case) for case in REVIEW_CASES), *EXAMPLE_TEXTS]


@pytest.mark.parametrize("text", TEXTS, ids=[f"{i}-{t[:50]}" for i, t in enumerate(TEXTS)])
def test_the_schema_and_the_check_agree_on_every_target(tmp_path: Path, text: str) -> None:
    path = tmp_path / "leaf_config.py"
    path.write_text(text, encoding="utf-8")
    loaded = Loader(environ={}).load(path)
    if not isinstance(loaded, ResolvedConfig) or plain_data(loaded) is None:
        pytest.skip("not expressible as JSON: an unknown value or a load failure")
    for target_name in TARGETS:
        assert disagreements(loaded, REGISTRY.get(target_name)) == [], target_name


def test_the_review_cases_all_load_as_json() -> None:
    # The cases above are plain data: none may be skipped, or the test above proves nothing.
    for case in REVIEW_CASES:
        assert json.loads(json.dumps(case)) == case


@pytest.mark.parametrize("target_name", TARGETS)
def test_exported_schema_is_valid_json_schema_and_matches_the_rules(
    tmp_path: Path, target_name: str
) -> None:
    result = run_cli("targets", target_name, "--json-schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    target = REGISTRY.get(target_name)
    for index, case in enumerate(REVIEW_CASES):
        path = tmp_path / f"case_{index}.py"
        path.write_text(_as_config_text(case), encoding="utf-8")
        loaded = Loader(environ={}).load(path)
        assert isinstance(loaded, ResolvedConfig)
        failing = check_failures(loaded, target) & set(rule_schemas(target))
        assert validator.is_valid(case) is (not failing), case
