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
    # reviewdog's line-based form: no columns, and no final newline (reviewdog adds it).
    assert diagnostics["CL203"]["suggestions"] == [
        {
            "range": {"start": {"line": 2}, "end": {"line": 2}},
            "text": "model_wrapper_cfg = dict(note='设备', device_ids=None)",
        }
    ]
    assert "suggestions" not in diagnostics["CL201"]
    related = [item["location"]["path"] for item in diagnostics["CL301"]["related_locations"]]
    assert related == ["configs/dinov3/a.py", "configs/dinov3/b.py"]


def test_the_exact_diagnostic_for_a_fixable_finding(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    document = json.loads(render([sample.by_code("CL301")], "rdjson", sample.context()))
    validate_rdjson(document)
    assert document == {
        "source": {"name": "cfglint", "url": "https://cfglint.readthedocs.io/"},
        "severity": "ERROR",
        "diagnostics": [
            {
                "message": "`env_cfg.cudnn_benchmark=True` has no effect without cuDNN\n"
                "fix (safe): Set `cudnn_benchmark=False`",
                "location": {
                    "path": "configs/_base_/runtime.py",
                    # The suggestion is on the same single line: the exact range stays.
                    "range": {"start": {"line": 2, "column": 21}, "end": {"line": 2, "column": 25}},
                },
                "severity": "ERROR",
                "code": {
                    "value": "CL301",
                    "url": "https://cfglint.readthedocs.io/en/latest/rules/CL301/",
                },
                "suggestions": [
                    {
                        "range": {"start": {"line": 2}, "end": {"line": 2}},
                        "text": "    cudnn_benchmark=False,",
                    }
                ],
                "related_locations": [
                    {
                        "message": "a config that inherits this value",
                        "location": {"path": "configs/dinov3/a.py"},
                    },
                    {
                        "message": "a config that inherits this value",
                        "location": {"path": "configs/dinov3/b.py"},
                    },
                ],
            }
        ],
    }


def test_unsafe_fixes_are_suggested_only_with_unsafe_fixes(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    hidden = _diagnostics(sample, validate_rdjson)["CL101"]
    assert "suggestions" not in hidden
    assert hidden["message"].endswith(
        "\nfix (unsafe fix: apply with `--fix --unsafe-fixes`): Remove `dist_cfg`"
    )
    document = json.loads(render(sample.violations, "rdjson", sample.context(unsafe_fixes=True)))
    validate_rdjson(document)
    offered = next(item for item in document["diagnostics"] if item["code"]["value"] == "CL101")
    assert offered["message"].endswith("\nfix (unsafe fix): Remove `dist_cfg`")
    # Deleting line 3 whole: an empty suggestion over that line.
    assert offered["suggestions"] == [
        {"range": {"start": {"line": 3}, "end": {"line": 3}}, "text": ""}
    ]


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
    diagnostic = _diagnostics(sample, validate_rdjson, [violation])["CL301"]
    assert diagnostic["suggestions"] == [
        {
            "range": {"start": {"line": 2}, "end": {"line": 3}},
            "text": "    cudnn_benchmark=False,\n    dist_cfg=dict(backend='eccl'),",
        }
    ]
    # reviewdog posts the suggestion only on a comment over the same lines.
    assert diagnostic["location"]["range"] == {"start": {"line": 2}, "end": {"line": 3}}


def test_a_fix_on_the_last_line_of_a_file_without_final_newline(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    leaf = sample.root / "configs/last.py"
    leaf.write_text("model = dict()\nmodel_wrapper_cfg = dict(device_ids=[0])", encoding="utf-8")
    violation = dataclasses.replace(
        sample.by_code("CL203"),
        span=Span(leaf, 2, 37, 2, 40),
        configs=(leaf,),
        fix=Fix(
            "Set `device_ids=None`",
            Applicability.SAFE,
            (TextEdit(Span(leaf, 2, 37, 2, 40), "None"),),
        ),
    )
    diagnostic = _diagnostics(sample, validate_rdjson, [violation])["CL203"]
    assert diagnostic["location"]["range"] == {
        "start": {"line": 2, "column": 37},
        "end": {"line": 2, "column": 40},
    }
    assert diagnostic["suggestions"] == [
        {
            "range": {"start": {"line": 2}, "end": {"line": 2}},
            "text": "model_wrapper_cfg = dict(device_ids=None)",
        }
    ]


def test_an_insertion_at_the_end_of_the_file_is_anchored_on_the_last_line(
    sample: Sample, validate_rdjson: Callable[[object], None]
) -> None:
    # A finding about the file as a whole (line 1, column 1, empty), fixed by appending.
    leaf = sample.leaf_a
    addition = "env_cfg = dict(cudnn_benchmark=False)\n"
    violation = dataclasses.replace(
        sample.by_code("CL301"),
        span=Span(leaf, 1, 1, 1, 1),
        configs=(leaf,),
        fix=Fix("Add `env_cfg`", Applicability.SAFE, (TextEdit(Span(leaf, 3, 1, 3, 1), addition),)),
    )
    diagnostic = _diagnostics(sample, validate_rdjson, [violation])["CL301"]
    assert diagnostic["location"]["range"] == {"start": {"line": 2}, "end": {"line": 2}}
    assert diagnostic["suggestions"] == [
        {
            "range": {"start": {"line": 2}, "end": {"line": 2}},
            "text": "model_wrapper_cfg = dict(note='设备', device_ids=[0])\n"
            "env_cfg = dict(cudnn_benchmark=False)",
        }
    ]


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
