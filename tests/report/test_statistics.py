"""`--statistics`: count, code, fixable marker and summary per rule."""

from __future__ import annotations

import dataclasses

from report.sample_tree import Sample

from cfglint.report import render_statistics


def test_counts_per_code_most_frequent_first(sample: Sample) -> None:
    second_leaf = dataclasses.replace(sample.by_code("CL201"), span=sample.by_code("CL203").span)
    violations = [*sample.violations, second_leaf]
    assert render_statistics(violations, sample.context()) == (
        "2\tCL201\t    DDP wrapper without device_ids=None\n"
        "1\tCL101\t    Distributed backend the target cannot run\n"
        "1\tCL203\t[*] Literal device ids in the DDP wrapper\n"
        "1\tCL301\t[*] cudnn_benchmark on a target without cuDNN\n"
        "1\tCL901\t    A _base_ file could not be found\n"
        "[*] 2 fixable with the `--fix` option.\n"
    )


def test_unsafe_fixes_are_marked_when_enabled(sample: Sample) -> None:
    output = render_statistics(sample.violations, sample.context(unsafe_fixes=True))
    assert "1\tCL101\t[*] Distributed backend the target cannot run\n" in output
    assert output.endswith("[*] 3 fixable with the `--fix` option.\n")


def test_nothing_found_prints_nothing(sample: Sample) -> None:
    assert render_statistics([], sample.context()) == ""
