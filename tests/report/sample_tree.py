"""A small config tree on disk, and the violations the check pipeline would find in it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfglint.report import ReportContext
from cfglint.types import Applicability, Fix, RuleInfo, Span, TextEdit, Violation

RUNTIME = """\
env_cfg = dict(
    cudnn_benchmark=True,
    dist_cfg=dict(backend='nccl'),
)
"""
LEAF_A = """\
_base_ = ['../_base_/runtime.py']
model_wrapper_cfg = dict(note='设备', device_ids=[0])
"""
LEAF_B = """\
_base_ = ['../_base_/runtime.py']
model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    find_unused_parameters=False,
)
"""
BROKEN = "_base_ = ['../missing.py']\n"

RULES = {
    info.code: info
    for info in (
        RuleInfo(
            "CL101",
            "dist-backend",
            "Distributed backend the target cannot run",
            "https://cfglint.readthedocs.io/en/latest/rules/CL101/",
            Applicability.UNSAFE,
        ),
        RuleInfo(
            "CL201",
            "ddp-device-ids",
            "DDP wrapper without device_ids=None",
            "https://cfglint.readthedocs.io/en/latest/rules/CL201/",
            Applicability.SAFE,
        ),
        RuleInfo(
            "CL203",
            "literal-device-ids",
            "Literal device ids in the DDP wrapper",
            "https://cfglint.readthedocs.io/en/latest/rules/CL203/",
            Applicability.SAFE,
        ),
        RuleInfo(
            "CL301",
            "cudnn-benchmark",
            "cudnn_benchmark on a target without cuDNN",
            "https://cfglint.readthedocs.io/en/latest/rules/CL301/",
            Applicability.SAFE,
            "`env_cfg.cudnn_benchmark` is `False` where the target has no cuDNN",
        ),
        RuleInfo(
            "CL901",
            "unresolved-base",
            "A _base_ file could not be found",
            "https://cfglint.readthedocs.io/en/latest/rules/CL901/",
            None,
        ),
    )
}


@dataclass(frozen=True)
class Sample:
    root: Path
    runtime: Path
    leaf_a: Path
    leaf_b: Path
    broken: Path
    violations: tuple[Violation, ...]

    def context(self, **overrides: Any) -> ReportContext:
        fields: dict[str, Any] = {"cwd": self.root, "rules": RULES, "color": False}
        fields.update(overrides)
        return ReportContext(**fields)

    def by_code(self, code: str) -> Violation:
        return next(violation for violation in self.violations if violation.code == code)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def build_sample(tmp_path: Path) -> Sample:
    """Write the tree under `tmp_path/project` and return it with its violations."""
    root = tmp_path / "project"
    runtime = _write(root / "configs/_base_/runtime.py", RUNTIME)
    leaf_a = _write(root / "configs/dinov3/a.py", LEAF_A)
    leaf_b = _write(root / "configs/dinov3/b.py", LEAF_B)
    broken = _write(root / "configs/broken.py", BROKEN)
    leaves = (leaf_a, leaf_b)
    # `True` on line 2 of the base file, inherited by both leaves; a safe fix.
    benchmark = Violation(
        code="CL301",
        message="`env_cfg.cudnn_benchmark=True` has no effect without cuDNN",
        span=Span(runtime, 2, 21, 2, 25),
        target="t20-gcu",
        configs=leaves,
        key="env_cfg.cudnn_benchmark",
        fix=Fix(
            "Set `cudnn_benchmark=False`",
            Applicability.SAFE,
            (TextEdit(Span(runtime, 2, 21, 2, 25), "False"),),
        ),
    )
    # `'nccl'` on line 3; the unsafe fix deletes the whole line.
    backend = Violation(
        code="CL101",
        message="backend 'nccl' needs NVIDIA GPUs",
        span=Span(runtime, 3, 27, 3, 33),
        target="t20-gcu",
        configs=leaves,
        key="env_cfg.dist_cfg.backend",
        fix=Fix(
            "Remove `dist_cfg`", Applicability.UNSAFE, (TextEdit(Span(runtime, 3, 1, 4, 1), ""),)
        ),
    )
    # `[0]` after two CJK characters: character column 48, UTF-8 byte column 52.
    literal = Violation(
        code="CL203",
        message="device_ids=[0]: every rank uses card 0, 100% of the load\non one card",
        span=Span(leaf_a, 2, 48, 2, 51),
        target="t20-gcu",
        configs=(leaf_a,),
        key="model_wrapper_cfg.device_ids",
        fix=Fix(
            "Set `device_ids=None`",
            Applicability.SAFE,
            (TextEdit(Span(leaf_a, 2, 48, 2, 51), "None"),),
        ),
    )
    # The whole `dict(...)` call, lines 2 to 5; no fix.
    wrapper = Violation(
        code="CL201",
        message="`model_wrapper_cfg` leaves `device_ids` unset",
        span=Span(leaf_b, 2, 21, 5, 2),
        target="t20-gcu",
        configs=(leaf_b,),
        key="model_wrapper_cfg",
    )
    unresolved = Violation(
        code="CL901",
        message="cannot resolve `_base_`: '../missing.py' does not exist",
        span=Span(broken, 1, 11, 1, 26),
        target=None,
        configs=(broken,),
    )
    violations = (wrapper, unresolved, literal, backend, benchmark)
    return Sample(root, runtime, leaf_a, leaf_b, broken, violations)
