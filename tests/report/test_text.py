"""The text format: what a person reads in a terminal or a CI log."""

from __future__ import annotations

import dataclasses

import pytest
from report.sample_tree import Sample

from cfglint.errors import UserError
from cfglint.report import FORMATS, render
from cfglint.types import Span

EXPECTED = "".join(
    line + "\n"
    for line in [
        "configs/_base_/runtime.py:2:21: CL301 [*] `env_cfg.cudnn_benchmark=True` has no effect"
        " without cuDNN",
        "  = applies to 2 configs: configs/dinov3/a.py, configs/dinov3/b.py",
        "  help: Set `cudnn_benchmark=False`",
        "configs/_base_/runtime.py:3:27: CL101 backend 'nccl' needs NVIDIA GPUs",
        "  = applies to 2 configs: configs/dinov3/a.py, configs/dinov3/b.py",
        "  help: Remove `dist_cfg` (unsafe fix: apply with `--fix --unsafe-fixes`)",
        "configs/broken.py:1:11: CL901 cannot resolve `_base_`: '../missing.py' does not exist",
        "  see: cfglint rule CL901",
        "configs/dinov3/a.py:2:48: CL203 [*] device_ids=[0]: every rank uses card 0, 100% of the"
        " load",
        "  on one card",
        "  help: Set `device_ids=None`",
        "configs/dinov3/b.py:2:21: CL201 `model_wrapper_cfg` leaves `device_ids` unset",
        "  see: cfglint rule CL201",
        "Found 5 errors on target t20-gcu.",
        "[*] 2 fixable with the `--fix` option (1 hidden fix can be enabled with the"
        " `--unsafe-fixes` option).",
    ]
)


def test_text_lists_sorted_violations_notes_hints_and_summary(sample: Sample) -> None:
    assert render(sample.violations, "text", sample.context()) == EXPECTED


def test_unsafe_fixes_count_as_fixable_when_enabled(sample: Sample) -> None:
    output = render(sample.violations, "text", sample.context(unsafe_fixes=True))
    assert "configs/_base_/runtime.py:3:27: CL101 [*] backend 'nccl'" in output
    assert "  help: Remove `dist_cfg`\n" in output
    assert output.endswith(
        "Found 5 errors on target t20-gcu.\n[*] 3 fixable with the `--fix` option.\n"
    )


def test_only_hidden_fixes(sample: Sample) -> None:
    output = render([sample.by_code("CL101")], "text", sample.context())
    assert output.endswith(
        "Found 1 error on target t20-gcu.\n"
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )


def test_fix_hints_can_be_hidden(sample: Sample) -> None:
    output = render(sample.violations, "text", sample.context(show_fix_hints=False))
    assert "help:" not in output
    assert "  = applies to 2 configs" in output


def test_clean_and_fixed_summaries(sample: Sample) -> None:
    assert render([], "text", sample.context()) == "All checks passed!\n"
    fixed = render([], "text", sample.context(fixed_count=2))
    assert fixed == "Fixed 2 errors.\nAll checks passed!\n"
    remaining = render([sample.by_code("CL201")], "text", sample.context(fixed_count=1))
    assert remaining.endswith("Fixed 1 error.\nFound 1 error on target t20-gcu.\n")


def test_warnings_are_counted_apart(sample: Sample) -> None:
    warning = dataclasses.replace(sample.by_code("CL201"), severity="warning")
    output = render([warning, sample.by_code("CL901")], "text", sample.context())
    assert output.endswith("Found 1 error and 1 warning on target t20-gcu.\n")


def test_long_config_lists_are_shortened(sample: Sample) -> None:
    leaves = tuple(sample.root / f"configs/leaf_{number}.py" for number in range(5))
    violation = dataclasses.replace(sample.by_code("CL301"), configs=leaves)
    output = render([violation], "text", sample.context())
    assert (
        "  = applies to 5 configs: configs/leaf_0.py, configs/leaf_1.py, configs/leaf_2.py"
        " and 2 more\n" in output
    )


def test_paths_outside_the_cwd_stay_absolute(sample: Sample) -> None:
    output = render([sample.by_code("CL201")], "text", sample.context(cwd=sample.root / "configs"))
    assert output.startswith("dinov3/b.py:2:21: CL201 ")
    elsewhere = sample.context(cwd=sample.root / "configs/_base_")
    assert render([sample.by_code("CL201")], "text", elsewhere).startswith(
        f"{sample.leaf_b.as_posix()}:2:21: CL201 "
    )


def test_relative_violation_paths_are_taken_from_the_cwd(sample: Sample) -> None:
    roundabout = sample.root / "configs/../configs/dinov3/b.py"
    violation = dataclasses.replace(sample.by_code("CL201"), span=Span(roundabout, 2, 21, 5, 2))
    assert render([violation], "text", sample.context()).startswith("configs/dinov3/b.py:2:21:")


def test_colour_only_when_asked(sample: Sample) -> None:
    plain = render(sample.violations, "text", sample.context())
    coloured = render(sample.violations, "text", sample.context(color=True))
    assert "\x1b[" not in plain
    assert "\x1b[1;31mCL301\x1b[0m" in coloured
    # Colour changes the look, not the words.
    assert _strip_ansi(coloured) == plain


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_every_format_ends_with_a_newline(sample: Sample) -> None:
    assert FORMATS == ("text", "json", "sarif", "github", "rdjson")
    for fmt in FORMATS:
        assert render(sample.violations, fmt, sample.context()).endswith("\n")


def test_unknown_format_is_a_user_error(sample: Sample) -> None:
    with pytest.raises(UserError, match="unknown output format 'xml'"):
        render(sample.violations, "xml", sample.context())


def test_a_run_mixing_targets_tags_each_finding_and_names_them_all(sample: Sample) -> None:
    cuda = dataclasses.replace(sample.by_code("CL201"), target="cuda")
    output = render([sample.by_code("CL203"), cuda], "text", sample.context())
    assert (
        "configs/dinov3/b.py:2:21: CL201 `model_wrapper_cfg` leaves `device_ids` unset [cuda]\n"
    ) in output
    assert "  on one card [t20-gcu]\n" in output
    assert "Found 2 errors on targets cuda and t20-gcu.\n" in output


def test_why_the_exit_code_is_2_comes_last(sample: Sample) -> None:
    reasons = ("2 configs could not be resolved", "1 error on stderr")
    failed = render([sample.by_code("CL901")], "text", sample.context(exit_reasons=reasons))
    assert failed.endswith(
        "Found 1 error.\nExit code 2: 2 configs could not be resolved; 1 error on stderr.\n"
    )
    # Nothing checked and nothing found: the reason alone, never "All checks passed!".
    nothing = render([], "text", sample.context(exit_reasons=reasons[1:], complete=False))
    assert nothing == "Exit code 2: 1 error on stderr.\n"
