"""SARIF 2.1.0: valid against the official schema, with exact regions, related configs, fixes."""

from __future__ import annotations

import dataclasses
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
    # The longer explanation, not the summary again; help ends each sentence before the link.
    assert cl301["fullDescription"] == {
        "text": "`env_cfg.cudnn_benchmark` is `False` where the target has no cuDNN."
    }
    assert cl301["help"]["text"] == (
        "Cudnn_benchmark on a target without cuDNN. `env_cfg.cudnn_benchmark` is `False` where "
        "the target has no cuDNN. See https://cfglint.readthedocs.io/en/latest/rules/CL301/"
    )
    assert cl301["help"]["markdown"].endswith(
        "\n\nSee [CL301](https://cfglint.readthedocs.io/en/latest/rules/CL301/)."
    )
    # Without a longer explanation, the summary stands for it.
    cl201 = driver["rules"][1]
    assert cl201["fullDescription"] == {"text": "DDP wrapper without device_ids=None."}
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
    # GitHub code scanning links a related location only when the message embeds it by id.
    assert [item["id"] for item in result["relatedLocations"]] == [1, 2]
    assert result["message"] == {
        "text": "`env_cfg.cudnn_benchmark=True` has no effect without cuDNN (applies to 2 "
        "configs: [configs/dinov3/a.py](1), [configs/dinov3/b.py](2))"
    }
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


def test_brackets_in_messages_are_escaped_and_long_lists_shortened(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    leaves = tuple(sample.root / f"configs/dinov3/leaf_{n}.py" for n in range(5))
    violation = dataclasses.replace(
        sample.by_code("CL203"), span=sample.by_code("CL301").span, configs=leaves
    )
    log = json.loads(render([violation], "sarif", sample.context()))
    validate_sarif(log)
    [result] = log["runs"][0]["results"]
    assert result["message"]["text"] == (
        "device_ids=\\[0\\]: every rank uses card 0, 100% of the load\non one card (applies to "
        "5 configs: [configs/dinov3/leaf_0.py](1), [configs/dinov3/leaf_1.py](2), "
        "[configs/dinov3/leaf_2.py](3) and 2 more)"
    )
    assert len(result["relatedLocations"]) == 5


def test_srcroot_is_the_given_source_root(
    sample: Sample, validate_sarif: Callable[[object], None]
) -> None:
    # cfglint run in a sub-folder of a git work tree: URIs stay relative to the work tree.
    context = sample.context(cwd=sample.root / "configs/dinov3", source_root=sample.root)
    log = json.loads(render(sample.violations, "sarif", context))
    validate_sarif(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": sample.root.as_uri() + "/"}}
    artifact = _result(run, "CL901")["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "configs/broken.py", "uriBaseId": "%SRCROOT%"}


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
