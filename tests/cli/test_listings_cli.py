"""The commands that list and explain: `rule` (a table without a code, a page rendered on a
terminal), `targets` (labelled columns), "did you mean" for a mistyped name, and `show`, which
takes files."""

from __future__ import annotations

import re

import pytest
from helpers import EXAMPLES, REPO_ROOT, run_cli, run_cli_on_a_full_terminal

from cfglint.rules import ALL_RULES


def test_rule_without_a_code_lists_every_rule_in_a_table() -> None:
    result = run_cli("rule")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "SEVERITY", "FIX", "SUMMARY"]
    assert [line.split()[0] for line in lines[1:]] == [rule.code for rule in ALL_RULES]
    assert lines[1].split(maxsplit=4) == [
        "CL101",
        "dist-backend",
        "error",
        "per",
        "target  process-group backend not available on the target",
    ]
    assert "CL401  accelerator-not-seen" in result.stdout
    # Columns line up: every summary starts where the header's does.
    start = lines[0].index("SUMMARY")
    assert all(line[start - 2 : start] == "  " and line[start] != " " for line in lines[1:])


def test_a_rule_page_is_markdown_in_a_pipe_and_rendered_on_a_terminal() -> None:
    piped = run_cli("rule", "CL201")
    assert piped.stdout.startswith("# CL201 `ddp-device-ids`\n")
    assert "```python" in piped.stdout
    exit_code, drawn = run_cli_on_a_full_terminal("rule", "CL201", cwd=REPO_ROOT)
    assert exit_code == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)
    assert "CL201 ddp-device-ids" in text
    assert "```" not in text and "# CL201" not in text
    assert "Fix safety" in text


def test_targets_are_listed_under_labelled_columns() -> None:
    lines = run_cli("targets", cwd=EXAMPLES).stdout.splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["TARGET", "DEVICE", "MMENGINE RESOLVES", "DESCRIPTION"]
    t20 = next(line for line in lines if line.startswith("t20-gcu"))
    assert re.split(r"\s{2,}", t20)[:3] == ["t20-gcu", "gcu", "cpu"]


def test_a_mistyped_target_or_rule_gets_a_suggestion() -> None:
    target = run_cli("targets", "cdua")
    assert (target.exit_code, target.stderr.splitlines()[0]) == (
        2,
        "cfglint: error: unknown target 'cdua': did you mean 'cuda'? (known: apple-mps, "
        "ascend-npu, cambricon-mlu, cpu, cuda, moore-threads-musa, t20-gcu)",
    )
    rule = run_cli("rule", "CL2O1")
    assert (rule.exit_code, rule.stderr) == (
        2,
        "cfglint: error: unknown rule 'CL2O1': did you mean 'CL201'? (`cfglint rule` lists "
        "the rules)\n",
    )
    selector = run_cli("check", "--select", "CL2O1", cwd=EXAMPLES)
    assert selector.exit_code == 2
    assert "unknown rule selector `CL2O1`: did you mean `CL201`?" in selector.stderr
    # Nothing close: no guess.
    assert "did you mean" not in run_cli("targets", "h100").stderr


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("t20", "t20-gcu"), ("GCU", "t20-gcu"), ("npu", "ascend-npu"), ("musa", "moore-threads-musa")],
)
def test_a_target_named_by_its_hardware_gets_the_targets_name(typed: str, meant: str) -> None:
    result = run_cli("check", "--target", typed, "configs", cwd=EXAMPLES)
    assert result.exit_code == 2
    assert f"unknown target '{typed}': did you mean '{meant}'?" in result.stderr


def test_a_code_prefix_of_several_rules_gets_no_single_guess() -> None:
    result = run_cli("rule", "CL20")
    assert (result.exit_code, result.stderr) == (
        2,
        "cfglint: error: unknown rule 'CL20' (`cfglint rule` lists the rules)\n",
    )


def test_show_on_a_folder_is_a_usage_error() -> None:
    result = run_cli("show", "configs", cwd=EXAMPLES)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "cfglint show: error: argument CONFIG: configs is a folder: show takes config files "
        "(`cfglint check` walks folders)"
    )
