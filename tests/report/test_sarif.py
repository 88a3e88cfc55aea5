"""SARIF 2.1.0: valid against the official schema, with exact regions, related configs, fixes."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from report.sample_tree import Sample

from cfglint import __version__
from cfglint.report import render


def _run(sample: Sample, validate_sarif: Callable[[object], None]) -> dict[str, Any]:
    log = json.loads(render(sample.violations, "sarif", sample.context()))
    validate_sarif(log)
    assert log["version"] == "2.1.0"
    run: dict[str, Any] = log["runs"][0]
    return run


def _result(run: dict[str, Any], code: str) -> dict[str, Any]:
    return next(result for result in run["results"] if result["ruleId"] == code)


def test_valid_log_with_tool_and_rules(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    run = _run(sample, validate_sarif)
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("cfglint", __version__)
    assert driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == ["CL101", "CL201", "CL203", "CL301", "CL901"]
    cl301 = driver["rules"][3]
    assert cl301["name"] == "cudnn-benchmark"
    assert cl301["shortDescription"] == {"text": "cudnn_benchmark on a target without cuDNN"}
    assert cl301["helpUri"] == "https://cfglint.readthedocs.io/en/latest/rules/CL301/"
    assert "text" in cl301["fullDescription"] and "text" in cl301["help"]
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": sample.root.as_uri() + "/"}}


def test_exact_region_relative_to_srcroot(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    result = _result(_run(sample, validate_sarif), "CL201")
    assert result["level"] == "error"
    assert result["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "configs/dinov3/b.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 2, "startColumn": 21, "endLine": 5, "endColumn": 2},
            }
        }
    ]
    assert "fixes" not in result and "relatedLocations" not in result


def test_base_finding_lists_its_configs_and_its_fix(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    run = _run(sample, validate_sarif)
    result = _result(run, "CL301")
    related = [
        item["physicalLocation"]["artifactLocation"]["uri"] for item in result["relatedLocations"]
    ]
    assert related == ["configs/dinov3/a.py", "configs/dinov3/b.py"]
    assert result["properties"] == {"target": "t20-gcu", "key": "env_cfg.cudnn_benchmark"}
    [fix] = result["fixes"]
    assert fix["artifactChanges"] == [
        {
            "artifactLocation": {"uri": "configs/_base_/runtime.py", "uriBaseId": "%SRCROOT%"},
            "replacements": [
                {
                    "deletedRegion": {
                        "startLine": 2,
                        "startColumn": 21,
                        "endLine": 2,
                        "endColumn": 25,
                    },
                    "insertedContent": {"text": "False"},
                }
            ],
        }
    ]
    deletion = _result(run, "CL101")["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert deletion == {
        "deletedRegion": {"startLine": 3, "startColumn": 1, "endLine": 4, "endColumn": 1},
        "insertedContent": {"text": ""},
    }


def test_files_outside_the_cwd_get_absolute_uris(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    context = sample.context(cwd=sample.root / "configs/dinov3")
    log = json.loads(render(sample.violations, "sarif", context))
    validate_sarif(log)
    result = _result(log["runs"][0], "CL901")
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": sample.broken.as_uri()}


def test_empty_run_is_valid(sample: Sample, validate_sarif: Callable[[object], None]) -> None:
    log = json.loads(render([], "sarif", sample.context()))
    validate_sarif(log)
    assert log["runs"][0]["results"] == []


def test_the_schema_check_rejects_a_broken_log(validate_sarif: Callable[[object], None]) -> None:
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"version": "1"}}}]}
    with pytest.raises(jsonschema.ValidationError, match="'name' is a required property"):
        validate_sarif(broken)
