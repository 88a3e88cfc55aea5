"""Exact regions for a `.yaml` config in every format that carries columns: a quoted string
covers its quotes (as a Python string literal does), a flow list covers `[` to `]`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from helpers import run_cli

CONFIG = """\
model:
  type: M
env_cfg:
  dist_cfg:
    backend: "nccl"
model_wrapper_cfg:
  type: MMDistributedDataParallel
  device_ids: [0]
"""
# `"nccl"`: line 5, columns 14 to 20 (end exclusive); `[0]`: line 8, columns 15 to 18.
REGIONS = {"CL101": (5, 14, 5, 20), "CL201": (8, 15, 8, 18)}


def _check(tmp_path: Path, fmt: str) -> str:
    (tmp_path / "train.yaml").write_text(CONFIG, encoding="utf-8")
    result = run_cli(
        "check", "train.yaml", "--target", "t20-gcu", "--output-format", fmt, cwd=tmp_path
    )
    assert result.exit_code == 1, result.stdout + result.stderr
    return result.stdout


def test_sarif_regions(tmp_path: Path, validate_sarif: Callable[[object], None]) -> None:
    log = json.loads(_check(tmp_path, "sarif"))
    validate_sarif(log)
    regions = {
        result["ruleId"]: result["locations"][0]["physicalLocation"]["region"]
        for result in log["runs"][0]["results"]
    }
    assert regions == {
        code: {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end}
        for code, (line, column, end_line, end) in REGIONS.items()
    }


def test_github_regions(tmp_path: Path) -> None:
    lines = _check(tmp_path, "github").splitlines()
    assert [line.split(",title=")[0] for line in lines] == [
        f"::error file=train.yaml,line={line},col={column},endLine={end_line},endColumn={end}"
        for line, column, end_line, end in REGIONS.values()
    ]


def test_rdjson_ranges(tmp_path: Path, validate_rdjson: Callable[[object], None]) -> None:
    document = json.loads(_check(tmp_path, "rdjson"))
    validate_rdjson(document)
    ranges = {item["code"]["value"]: item["location"]["range"] for item in document["diagnostics"]}
    assert ranges == {
        code: {
            "start": {"line": line, "column": column},
            "end": {"line": end_line, "column": end},
        }
        for code, (line, column, end_line, end) in REGIONS.items()
    }
