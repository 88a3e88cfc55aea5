"""The formats through the real command line, on the example config tree."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from helpers import EXAMPLES, run_cli

# What `cfglint check . --output-format github` prints in examples/, line for line.
GITHUB_LINES = (
    (Path(__file__).parent / "data/examples.github.txt").read_text(encoding="utf-8").splitlines()
)


def test_github_annotations_for_the_examples() -> None:
    result = run_cli("check", ".", "--output-format", "github", cwd=EXAMPLES)
    assert result.exit_code == 1, result.stderr
    assert result.stdout.splitlines() == GITHUB_LINES


def test_sarif_for_the_examples_is_valid(validate_sarif: Callable[[object], None]) -> None:
    result = run_cli("check", ".", "--output-format", "sarif", cwd=EXAMPLES)
    assert result.exit_code == 1, result.stderr
    log = json.loads(result.stdout)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(GITHUB_LINES)
    base_results = [
        item
        for item in results
        if item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "configs/_base_/default_runtime.py"
    ]
    assert {item["ruleId"] for item in base_results} == {"CL101", "CL301"}
    for item in base_results:
        assert len(item["relatedLocations"]) == 2
        assert item["fixes"][0]["artifactChanges"]


def test_rdjson_for_the_examples_is_valid(validate_rdjson: Callable[[object], None]) -> None:
    result = run_cli("check", ".", "--output-format", "rdjson", cwd=EXAMPLES)
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)
    validate_rdjson(document)
    diagnostics = document["diagnostics"]
    assert len(diagnostics) == len(GITHUB_LINES)
    ddp = next(item for item in diagnostics if item["location"]["path"].endswith("_ddp.py"))
    assert ddp["code"]["value"] == "CL201"
    assert ddp["suggestions"] == [
        {
            "range": {"start": {"line": 9, "column": 1}, "end": {"line": 10, "column": 1}},
            "text": "    device_ids=None,\n",
        }
    ]
    # The base-file findings' fixes land in the leaf configs (the base is shared with a CUDA
    # config): no suggestion on the base file's lines.
    base = [item for item in diagnostics if item["location"]["path"].startswith("configs/_base_/")]
    assert base and all("suggestions" not in item for item in base)


def test_json_and_text_agree_on_the_examples() -> None:
    as_json = run_cli("check", ".", "--output-format", "json", cwd=EXAMPLES)
    as_text = run_cli("check", ".", cwd=EXAMPLES)
    items = json.loads(as_json.stdout)
    assert as_text.stdout.endswith(
        f"Found {len(items)} errors.\n[*] 6 fixable with the `--fix` option.\n"
    )
    for item in items:
        relative = item["filename"].removeprefix(str(EXAMPLES) + "/")
        row, column = item["location"]["row"], item["location"]["column"]
        assert f"{relative}:{row}:{column}: {item['code']} " in as_text.stdout
