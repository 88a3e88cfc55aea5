"""`cfglint check` through the real command line: output, exit codes, settings, suppression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli

EXPECTED_EXAMPLES = [
    ("configs/_base_/default_runtime.py", 11, 21, "CL301"),
    ("configs/_base_/default_runtime.py", 13, 27, "CL101"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py", 7, 12, "CL102"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py", 11, 21, "CL201"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", 9, 16, "CL201"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", 10, 19, "CL202"),
    ("configs/gcu_smoke/toy_gcu_smoke.py", 1, 1, "CL201"),
]


@pytest.fixture()
def examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _diagnostic_lines(stdout: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in stdout.splitlines():
        if line[:1].isspace() or ": CL" not in line:
            continue
        location, rest = line.split(": ", 1)
        path, row, column = location.rsplit(":", 2)
        found.append((path, int(row), int(column), rest.split(" ", 1)[0]))
    return found


def test_examples_show_every_seed_failure_at_its_line(examples: Path) -> None:
    result = run_cli("check", ".", cwd=examples)
    assert result.exit_code == 1, result.stderr
    assert _diagnostic_lines(result.stdout) == EXPECTED_EXAMPLES
    # The CUDA config shares the base but is clean, and is named nowhere.
    assert "cuda/train_toy_cuda_8card.py" not in result.stdout
    assert "applies to 2 configs" in result.stdout
    assert result.stdout.endswith("Found 7 errors.\n[*] 6 fixable with the `--fix` option.\n")
    assert result.stderr == ""


def test_json_output_lists_configs_and_targets(examples: Path) -> None:
    result = run_cli("check", "--output-format", "json", cwd=examples)
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    assert [(r["code"], r["location"]["row"]) for r in records] == [
        (code, row) for _, row, _, code in EXPECTED_EXAMPLES
    ]
    backend = records[1]
    assert backend["filename"] == str(examples / "configs/_base_/default_runtime.py")
    assert backend["target"] == "t20-gcu"
    assert sorted(Path(p).name for p in backend["configs"]) == [
        "train_dinov3_mmrs1m_t20_gcu_8card.py",
        "train_dinov3_mmrs1m_t20_gcu_8card_ddp.py",
    ]
    assert backend["url"].endswith("/rules/CL101/")
    assert backend["end_location"] == {"row": 13, "column": 33}


def test_cli_target_beats_settings(examples: Path) -> None:
    cuda = run_cli("check", "--target", "cuda", "configs", cwd=examples)
    assert cuda.exit_code == 1
    # the seed-000 config pins device_ids=[0] for every rank; the ported smoke test uses gloo
    assert [(Path(d[0]).name, d[3]) for d in _diagnostic_lines(cuda.stdout)] == [
        ("train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", "CL203"),
        ("toy_gcu_smoke.py", "CL101"),
    ]
    clean = run_cli("check", "--target", "cuda", "configs/cuda", cwd=examples)
    assert clean.exit_code == 0
    assert "All checks passed!" in clean.stdout


def test_select_ignore_statistics_exit_zero(examples: Path) -> None:
    only_201 = run_cli("check", "--select", "CL2", "--ignore", "CL202", cwd=examples)
    assert {d[3] for d in _diagnostic_lines(only_201.stdout)} == {"CL201"}
    stats = run_cli("check", "--statistics", cwd=examples)
    assert stats.exit_code == 1
    rows = [line.split("\t") for line in stats.stdout.splitlines()]
    rows = [row for row in rows if row[0].strip().isdigit()]
    counts = {code: int(count) for count, code, *_ in rows}
    assert counts == {"CL101": 1, "CL102": 1, "CL201": 3, "CL202": 1, "CL301": 1}
    assert run_cli("check", "--exit-zero", cwd=examples).exit_code == 0
    assert run_cli("check", "--select", "XX1", cwd=examples).exit_code == 2


def test_noqa_on_the_line_that_sets_the_value(examples: Path) -> None:
    base = examples / "configs/_base_/default_runtime.py"
    text = base.read_text(encoding="utf-8")
    base.write_text(
        text.replace(
            "cudnn_benchmark=True,", "cudnn_benchmark=True,  # cfglint: noqa: CL301"
        ).replace(
            "dist_cfg=dict(backend='nccl'),",
            "dist_cfg=dict(backend='nccl'),  # cfglint: noqa: CL999",
        ),
        encoding="utf-8",
    )
    codes = [d[3] for d in _diagnostic_lines(run_cli("check", cwd=examples).stdout)]
    assert "CL301" not in codes
    assert "CL101" in codes  # a noqa for another code does not hide it


def test_config_without_target_is_an_error_that_says_how(tmp_path: Path) -> None:
    config = tmp_path / "orphan.py"
    config.write_text("model = dict(type='X')\n", encoding="utf-8")
    result = run_cli("check", "orphan.py", cwd=tmp_path)
    assert result.exit_code == 2
    assert "orphan.py: no target for this config: pass --target NAME" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_file_is_reported_and_the_run_goes_on(examples: Path) -> None:
    broken = examples / "configs/dinov3/broken.py"
    broken.write_text("model = dict(type='X'\n", encoding="utf-8")
    (examples / "configs/dinov3/latin1.py").write_bytes("# caf\xe9\nx = 1\n".encode("latin-1"))
    result = run_cli("check", cwd=examples)
    assert result.exit_code == 2
    codes = [(Path(d[0]).name, d[3]) for d in _diagnostic_lines(result.stdout)]
    assert ("broken.py", "CL901") in codes
    assert ("latin1.py", "CL902") in codes
    # the other configs were still checked
    assert ("train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", "CL202") in codes
    assert "Traceback" not in result.stderr


def test_base_file_named_alone_checks_its_inheritors(examples: Path) -> None:
    result = run_cli("check", "configs/_base_/default_runtime.py", cwd=examples)
    assert result.exit_code == 1
    lines = _diagnostic_lines(result.stdout)
    assert ("configs/_base_/default_runtime.py", 13, 27, "CL101") in lines
    assert any(d[0].endswith("toy_gcu_smoke.py") for d in lines)


def test_rule_command_explains_a_rule() -> None:
    result = run_cli("rule", "CL201")
    assert result.exit_code == 0
    assert result.stdout.startswith("# CL201 `ddp-device-ids`")
    assert "but got device_ids [0], output_device None" in result.stdout
    assert run_cli("rule", "CL999").exit_code == 2
    assert "# CL906" in run_cli("rule", "--all").stdout
