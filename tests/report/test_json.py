"""The JSON format: ruff's fields, so tools that read ruff's JSON read ours."""

from __future__ import annotations

import json

from report.sample_tree import Sample

from cfglint.report import render


def test_fields_of_a_base_file_finding(sample: Sample) -> None:
    items = json.loads(render(sample.violations, "json", sample.context()))
    assert [item["code"] for item in items] == ["CL301", "CL101", "CL901", "CL203", "CL201"]
    benchmark = items[0]
    assert benchmark == {
        "code": "CL301",
        "filename": str(sample.runtime),
        "location": {"row": 2, "column": 21},
        "end_location": {"row": 2, "column": 25},
        "message": "`env_cfg.cudnn_benchmark=True` has no effect without cuDNN",
        "fix": {
            "applicability": "safe",
            "message": "Set `cudnn_benchmark=False`",
            "edits": [
                {
                    "content": "False",
                    "filename": str(sample.runtime),
                    "location": {"row": 2, "column": 21},
                    "end_location": {"row": 2, "column": 25},
                }
            ],
        },
        "url": "https://cfglint.readthedocs.io/en/latest/rules/CL301/",
        "noqa_row": 2,
        "severity": "error",
        "target": "t20-gcu",
        "configs": [str(sample.leaf_a), str(sample.leaf_b)],
        "key": "env_cfg.cudnn_benchmark",
    }


def test_unsafe_fix_no_fix_and_unresolved_config(sample: Sample) -> None:
    output = render(sample.violations, "json", sample.context())
    items = {item["code"]: item for item in json.loads(output)}
    assert items["CL101"]["fix"]["applicability"] == "unsafe"
    assert items["CL101"]["fix"]["edits"][0]["content"] == ""
    assert items["CL201"]["fix"] is None
    assert items["CL201"]["end_location"] == {"row": 5, "column": 2}
    assert items["CL901"]["target"] is None
    assert items["CL901"]["key"] is None
    # Non-ASCII and newlines survive as text, not escapes.
    assert items["CL203"]["message"].endswith("100% of the load\non one card")


def test_no_violations_is_an_empty_list(sample: Sample) -> None:
    assert render([], "json", sample.context()) == "[]\n"
