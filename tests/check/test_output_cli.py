"""What `check` and `fix` print, as ruff prints it: the target said once, a pointer to the rule's
page for what cannot be fixed, why the exit code is 2, `--diff`'s summary and colour,
`--output-file`, `--add-noqa`, `-V`, and a progress bar with a total for check and fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli, run_cli_on_a_full_terminal, run_cli_on_a_terminal

from cfglint import __version__

TWO_TARGETS = {
    "pyproject.toml": '[tool.cfglint]\ndefault-target = "cpu"\n',
    "gpu.py": "# cfglint: target=cuda\nmodel = dict(type='M')\n"
    "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
    "host.py": "model = dict(type='M')\nlauncher = 'pytorch'\n"
    "model_wrapper_cfg = dict(device_ids=None)\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture()
def examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__", ".cfglint_cache"))
    return copy


def test_one_target_is_named_once_in_the_summary(examples: Path) -> None:
    result = run_cli("check", "--no-cache", "configs", cwd=examples)
    findings = [line for line in result.stdout.splitlines() if ": CL" in line]
    assert findings and not any("t20-gcu" in line for line in findings), findings
    assert "Found 9 errors on target t20-gcu.\n" in result.stdout


def test_a_run_mixing_targets_tags_each_finding(tmp_path: Path) -> None:
    _tree(tmp_path, TWO_TARGETS)
    result = run_cli("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert (
        "gpu.py:3:38: CL101 [*] `env_cfg.dist_cfg.backend` is 'gloo', which does not work "
        "on the target: use 'nccl' [cuda]" in lines
    )
    assert (
        "host.py:2:12: CL102 `launcher='pytorch'`: init_dist's torch.cuda.set_device fails "
        "on the target; create the process group first [cpu]" in lines
    )
    assert "Found 2 errors on targets cpu and cuda." in lines


def test_a_finding_without_a_fix_points_at_its_rule(tmp_path: Path) -> None:
    _tree(tmp_path, TWO_TARGETS)
    lines = run_cli("check", "--no-cache", cwd=tmp_path).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("host.py:2:12: CL102"))
    assert lines[at + 1] == "  see: cfglint rule CL102"
    fixable = next(i for i, line in enumerate(lines) if line.startswith("gpu.py:3:38: CL101"))
    assert lines[fixable + 1] == "  help: Set `env_cfg.dist_cfg.backend` to 'nccl'"


def test_the_summary_says_why_the_exit_code_is_2(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cfglint]\ndefault-target = "cpu"\n',
            "_base_/broken.py": "env_cfg = dict(\n",
            "a.py": "_base_ = ['_base_/broken.py']\nmodel = dict(type='M')\n",
            "b.py": "_base_ = ['_base_/broken.py']\nmodel = dict(type='M')\n",
            "c.py": "_base_ = ['_base_/missing.py']\nmodel = dict(type='M')\n",
        },
    )
    result = run_cli("check", "--no-cache", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout.endswith(
        "Found 2 errors.\nExit code 2: 3 configs could not be resolved.\n"
    ), result.stdout


def test_diff_is_a_patch_and_says_what_it_would_fix_on_stderr(examples: Path) -> None:
    result = run_cli("check", "--no-cache", "--diff", "configs", cwd=examples)
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/configs/")
    assert "Would fix" not in result.stdout
    assert result.stderr == "Would fix 6 errors.\n"  # with those in the launches' scripts


def test_diff_is_coloured_on_a_terminal(examples: Path) -> None:
    exit_code, drawn = run_cli_on_a_full_terminal(
        "check", "--no-cache", "--diff", "configs", cwd=examples
    )
    assert exit_code == 1
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)
    assert "\x1b[32m+" in drawn and "\x1b[31m-" in drawn  # green additions, red removals
    assert "Would fix 6 errors." in plain


def test_output_file_gets_the_whole_report(examples: Path) -> None:
    shown = run_cli("check", "--no-cache", cwd=examples)
    result = run_cli("check", "--no-cache", "-o", "reports/cfglint.txt", cwd=examples)
    assert (result.exit_code, result.stdout) == (shown.exit_code, "")
    assert result.stderr == shown.stderr
    report = examples / "reports/cfglint.txt"
    assert report.read_text(encoding="utf-8") == shown.stdout
    json_run = run_cli(
        "check", "--no-cache", "--output-format", "json", "--output-file", report, cwd=examples
    )
    assert json_run.stdout == ""
    assert report.read_text(encoding="utf-8").startswith("[\n")


def test_output_file_that_cannot_be_written_is_one_error(examples: Path) -> None:
    result = run_cli("check", "--no-cache", "--output-file", "configs", cwd=examples)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(
        "cfglint: error: cannot write the report to configs: "
    )


def test_version_short_option() -> None:
    result = run_cli("-V")
    assert (result.exit_code, result.stdout) == (0, f"cfglint {__version__}\n")


def test_progress_has_a_total_in_check_and_in_each_fix_round(
    examples: Path, tmp_path: Path
) -> None:
    exit_code, drawn, report = run_cli_on_a_terminal(
        "fix", "--no-cache", ".", cwd=examples, stdout_file=tmp_path / "report.txt"
    )
    assert exit_code == 1, drawn + report
    assert "Fixed 6 errors." in report
    assert "checking" in drawn and "fixing, round 1: checking" in drawn
    totals = {int(total) for total in re.findall(r"\d+/(\d+) configs", drawn)}
    assert max(totals) == 4  # the four launchable configs, each round


# --- --add-noqa ----------------------------------------------------------------------------

NOQA_PROJECT = {
    "pyproject.toml": '[tool.cfglint]\ndefault-target = "t20-gcu"\n',
    "configs/_base_/runtime.py": "env_cfg = dict(\n"
    "    cudnn_benchmark=True,  # tuned on the A100s\n"
    "    dist_cfg=dict(backend='nccl'),\n"
    ")\n",
    "configs/job.py": "_base_ = ['_base_/runtime.py']\n"
    "model = dict(type='M')\n"
    "launcher = 'pytorch'  # cfglint: noqa: CL201\n"
    "model_wrapper_cfg = dict(device_ids=None)\n",
    "configs/job.yaml": "model:\n  type: M\nlauncher: pytorch\nmodel_wrapper_cfg:\n"
    "  device_ids: null\nenv_cfg:\n  dist_cfg:\n    backend: gloo\n",
    "configs/job.json": '{"model": {"type": "M"}, "model_wrapper_cfg": {"device_ids": null},\n'
    ' "env_cfg": {"dist_cfg": {"backend": "nccl"}}}\n',
}


def test_add_noqa_marks_each_line_with_a_finding(tmp_path: Path) -> None:
    project = _tree(tmp_path / "project", NOQA_PROJECT)
    result = run_cli("check", "--no-cache", "--add-noqa", "configs", cwd=project)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines() == [
        "cfglint: warning: configs/job.json: no noqa added for 1 finding: JSON has no comments",
        "Added 4 noqa directives.",
    ]
    configs = project / "configs"
    assert (configs / "_base_/runtime.py").read_text(encoding="utf-8") == (
        "env_cfg = dict(\n"
        "    cudnn_benchmark=True,  # tuned on the A100s  # cfglint: noqa: CL301\n"
        "    dist_cfg=dict(backend='nccl'),  # cfglint: noqa: CL101\n"
        ")\n"
    )
    assert (configs / "job.py").read_text(encoding="utf-8").splitlines()[2] == (
        "launcher = 'pytorch'  # cfglint: noqa: CL201, CL102"
    )
    assert (configs / "job.yaml").read_text(encoding="utf-8").splitlines()[2] == (
        "launcher: pytorch  # cfglint: noqa: CL102"
    )
    # What is left is the JSON config's.
    again = run_cli("check", "--no-cache", "configs", cwd=project)
    assert {line.split(":")[0] for line in again.stdout.splitlines() if ": CL" in line} == {
        "configs/job.json"
    }


def test_add_noqa_never_writes_outside_the_project(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "shared", {"runtime.py": "env_cfg = dict(cudnn_benchmark=True)\n"})
    project = _tree(
        tmp_path / "project",
        {
            "pyproject.toml": '[tool.cfglint]\ndefault-target = "cpu"\n',
            "job.py": "_base_ = ['../shared/runtime.py']\nmodel = dict(type='M')\n"
            "model_wrapper_cfg = dict(device_ids=None)\n"
            "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
        },
    )
    before = (outside / "runtime.py").read_text(encoding="utf-8")
    result = run_cli("check", "--no-cache", "--add-noqa", "job.py", cwd=project)
    assert result.exit_code == 0
    assert result.stderr == (
        f"cfglint: warning: {outside / 'runtime.py'}: no noqa added for 1 finding: it is "
        "outside the project\n"
    )
    assert (outside / "runtime.py").read_text(encoding="utf-8") == before


def test_add_noqa_is_not_a_fix(examples: Path) -> None:
    result = run_cli("check", "--add-noqa", "--diff", cwd=examples)
    assert result.exit_code == 2
    assert result.stderr == "cfglint: error: --add-noqa cannot be used with --fix or --diff\n"
