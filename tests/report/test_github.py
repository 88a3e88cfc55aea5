"""GitHub workflow commands: one exact line per violation, escaped as GitHub documents."""

from __future__ import annotations

import dataclasses

from report.sample_tree import Sample

from cfglint.report import render
from cfglint.report.github import escape_data, escape_property

EXPECTED = [
    "::error file=configs/_base_/runtime.py,line=2,col=21,endLine=2,endColumn=25,"
    "title=cfglint (CL301)::`env_cfg.cudnn_benchmark=True` has no effect without cuDNN"
    "%0Atarget: t20-gcu%0Aapplies to 2 configs: configs/dinov3/a.py, configs/dinov3/b.py"
    "%0Afix (safe): Set `cudnn_benchmark=False`",
    "::error file=configs/_base_/runtime.py,line=3,col=27,endLine=3,endColumn=33,"
    "title=cfglint (CL101)::backend 'nccl' needs NVIDIA GPUs%0Atarget: t20-gcu"
    "%0Aapplies to 2 configs: configs/dinov3/a.py, configs/dinov3/b.py"
    "%0Afix (unsafe fix: apply with `--fix --unsafe-fixes`): Remove `dist_cfg`",
    "::error file=configs/broken.py,line=1,col=11,endLine=1,endColumn=26,"
    "title=cfglint (CL901)::cannot resolve `_base_`: '../missing.py' does not exist",
    "::error file=configs/dinov3/a.py,line=2,col=48,endLine=2,endColumn=51,"
    "title=cfglint (CL203)::device_ids=[0]: every rank uses card 0, 100%25 of the load"
    "%0Aon one card%0Atarget: t20-gcu%0Afix (safe): Set `device_ids=None`",
    # Spans several lines: no col/endColumn (GitHub would misplace them).
    "::error file=configs/dinov3/b.py,line=2,endLine=5,"
    "title=cfglint (CL201)::`model_wrapper_cfg` leaves `device_ids` unset%0Atarget: t20-gcu",
]


def test_one_annotation_per_violation(sample: Sample) -> None:
    assert render(sample.violations, "github", sample.context()).splitlines() == EXPECTED


def test_nothing_to_say_prints_nothing(sample: Sample) -> None:
    assert render([], "github", sample.context()) == ""


def test_warnings_use_the_warning_command(sample: Sample) -> None:
    warning = dataclasses.replace(sample.by_code("CL901"), severity="warning")
    assert render([warning], "github", sample.context()).startswith("::warning file=configs/")


def test_escaping_of_data_and_properties() -> None:
    assert escape_data("100% a:b,c\r\nd") == "100%25 a:b,c%0D%0Ad"
    assert escape_property("100% a:b,c\r\nd") == "100%25 a%3Ab%2Cc%0D%0Ad"


def test_paths_with_commas_and_colons_are_escaped(sample: Sample) -> None:
    odd = sample.root / "configs/a,b:c.py"
    odd.write_text("x = 1\n", encoding="utf-8")
    violation = dataclasses.replace(
        sample.by_code("CL201"),
        span=sample.by_code("CL201").span._replace(path=odd),
        configs=(odd,),
    )
    line = render([violation], "github", sample.context())
    assert line.startswith("::error file=configs/a%2Cb%3Ac.py,line=2,endLine=5,title=")
