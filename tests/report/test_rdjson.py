"""reviewdog's rdjson: valid, UTF-8 byte columns, and whole-line suggestions."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from report.sample_tree import Sample

from cfglint.report import render
from cfglint.types import Applicability, Fix, Span, TextEdit


def _diagnostics(
    sample: Sample, validate_rdjson: Callable[[object], None], violations: Any = None
) -> dict[str, dict[str, Any]]:
    chosen = sample.violations if violations is None else violations
    result = json.loads(render(chosen, "rdjson", sample.context()))
    validate_rdjson(result)
    assert result["source"]["name"] == "cfglint"
    return {item["code"]["value"]: item for item in result["diagnostics"]}


def test_columns_are_utf8_bytes(sample: Sample, validate_rdjson: Callable[[object], None]) -> None:
    literal = _diagnostics(sample, validate_rdjson)["CL203"]
    # `[0]` is character column 48, after two 3-byte characters: byte column 52.
    assert literal["location"] == {
        "path": "configs/dinov3/a.py",
        "range": {"start": {"line": 2, "column": 52}, "end": {"line": 2, "column": 55}},
    }
    assert literal["severity"] == "ERROR"
    assert literal["code"] == {
        "value": "CL203",
        "url": "https://cfglint.readthedocs.io/en/latest/rules/CL203/",
    }


def test_suggestion_replaces_whole_lines(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    diagnostics = _diagnostics(sample, validate_rdjson)
    assert diagnostics["CL203"]["suggestions"] == [
        {
            "range": {"start": {"line": 2, "column": 1}, "end": {"line": 3, "column": 1}},
            "text": "model_wrapper_cfg = dict(note='设备', device_ids=None)\n",
        }
    ]
    # A deletion of a whole line: empty text over that line.
    assert diagnostics["CL101"]["suggestions"] == [
        {"range": {"start": {"line": 3, "column": 1}, "end": {"line": 4, "column": 1}}, "text": ""}
    ]
    assert "suggestions" not in diagnostics["CL201"]
    related = [item["location"]["path"] for item in diagnostics["CL301"]["related_locations"]]
    assert related == ["configs/dinov3/a.py", "configs/dinov3/b.py"]


def test_edits_on_several_lines_become_one_suggestion(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    runtime = sample.runtime
    fix = Fix(
        "Use the GCU defaults",
        Applicability.SAFE,
        (
            TextEdit(Span(runtime, 3, 27, 3, 33), "'eccl'"),
            TextEdit(Span(runtime, 2, 21, 2, 25), "False"),
        ),
    )
    violation = dataclasses.replace(sample.by_code("CL301"), fix=fix)
    [suggestion] = _diagnostics(sample, validate_rdjson, [violation])["CL301"]["suggestions"]
    assert suggestion == {
        "range": {"start": {"line": 2, "column": 1}, "end": {"line": 4, "column": 1}},
        "text": "    cudnn_benchmark=False,\n    dist_cfg=dict(backend='eccl'),\n",
    }


def test_edits_in_another_file_give_no_suggestion(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    # The fix was placed in the leaf config, not in the base file the diagnostic points at.
    fix = Fix(
        "Set in the leaf",
        Applicability.SAFE,
        (TextEdit(Span(sample.leaf_b, 6, 1, 6, 1), "env_cfg = dict(cudnn_benchmark=False)\n"),),
    )
    violation = dataclasses.replace(sample.by_code("CL301"), fix=fix)
    assert "suggestions" not in _diagnostics(sample, validate_rdjson, [violation])["CL301"]


def test_empty_result_is_valid(sample: Sample, validate_rdjson: Callable[[object], None]) -> None:
    result = json.loads(render([], "rdjson", sample.context()))
    validate_rdjson(result)
    assert result["diagnostics"] == []


def test_the_schema_check_rejects_a_broken_result(
    validate_rdjson: Callable[[object], None],
) -> None:
    broken = {"diagnostics": [{"location": {"range": {"start": {"line": "two"}}}}]}
    with pytest.raises(jsonschema.ValidationError, match="'two' is not of type 'integer'"):
        validate_rdjson(broken)
