"""CL302: mmcv-1.x top-level keys that MMEngine's Runner never reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cfglint.rules.base import Example, Finding, Rule, RuleContext, unknown_finding
from cfglint.rules.keys import Absent, Present, Unknown, key_state
from cfglint.types import (
    REMOVE,
    Applicability,
    DictNode,
    FixIntent,
    KeyChange,
    UnknownValueError,
    to_python,
)

CODE = "CL302"

# Each legacy key, and where MMEngine reads what it meant (None: nowhere exactly).
MOVED_TO: Mapping[str, str | None] = {
    "dist_params": "env_cfg.dist_cfg",
    "cudnn_benchmark": "env_cfg.cudnn_benchmark",
    "fp16": None,
    "gpu_ids": None,
    "device": None,
}
_INSTEAD: Mapping[str, str] = {
    "dist_params": "set `env_cfg.dist_cfg`",
    "cudnn_benchmark": "set `env_cfg.cudnn_benchmark`",
    "fp16": "use `optim_wrapper=dict(type='AmpOptimWrapper', ...)`",
    "gpu_ids": "the launcher decides the processes",
    "device": "MMEngine picks the device itself",
}


def _move(root: DictNode, key: str, value: object) -> FixIntent | None:
    """The exact move to where the Runner reads it, when nothing is there yet."""
    destination = MOVED_TO[key]
    if destination is None:
        return None
    if key == "dist_params":
        if not isinstance(value, Mapping) or not value:
            return None
        moved = {f"{destination}.{name}": item for name, item in value.items()}
    else:
        moved = {destination: value}
    if any(not isinstance(key_state(root, k), Absent) for k in moved):
        return None  # the Runner's key is already set (or unknown): the user must choose
    changes = tuple(KeyChange(tuple(k.split(".")), v) for k, v in moved.items())
    return FixIntent(
        f"Move it to `{destination}`",
        (*changes, KeyChange((key,), REMOVE)),
        Applicability.SAFE,
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    root = ctx.config.root
    for key in MOVED_TO:
        state = key_state(root, key)
        if isinstance(state, Absent):
            continue
        if isinstance(state, Unknown):
            yield unknown_finding(ctx, CODE, state.node, key)
            continue
        assert isinstance(state, Present)
        try:
            value = to_python(state.node)
        except UnknownValueError:
            value = None  # reported without a fix: the value cannot be moved as written
        yield Finding(
            CODE,
            f"top-level `{key}` is an mmcv-1.x key the Runner ignores: {_INSTEAD[key]}",
            key,
            state.node,
            _move(root, key, value) if value is not None else None,
        )


RULE = Rule(
    code=CODE,
    name="legacy-key",
    summary="mmcv-1.x key the MMEngine Runner ignores",
    what=(
        "A top-level `dist_params`, `cudnn_benchmark`, `fp16`, `gpu_ids` or `device`: keys "
        "mmcv-1.x training scripts read, which `Runner.from_cfg` never looks at. Checked on "
        "every target. A **warning**: the job runs, without what the key asked for."
    ),
    why=(
        "MMEngine 0.10's `Runner.from_cfg` builds the Runner from a fixed list of keys "
        "(`model`, `work_dir`, ..., `launcher=cfg.get('launcher', 'none')`, "
        "`env_cfg=cfg.get('env_cfg', dict(dist_cfg=dict(backend='nccl')))`, ...). The "
        "process-group backend comes from `env_cfg.dist_cfg` (`init_dist(self.launcher, "
        "**dist_cfg)` in `setup_env`), cuDNN autotuning from `env_cfg.cudnn_benchmark` (`if "
        "env_cfg.get('cudnn_benchmark'): torch.backends.cudnn.benchmark = True`), the device "
        "from `get_device()` and mixed precision from `optim_wrapper`. `gpu_ids` is read only "
        "from a checkpoint's saved config, when resuming. So `dist_params=dict(backend='gloo')` "
        "leaves the job on `nccl`, and `fp16=dict(loss_scale=512.)` trains in full precision, "
        "with no error."
    ),
    fix_doc=(
        "`dist_params` and `cudnn_benchmark` move to `env_cfg.dist_cfg` and "
        "`env_cfg.cudnn_benchmark` when those are not set yet. `fp16`, `gpu_ids` and `device` "
        "have no "
        "exact equivalent (AMP depends on the target; the others are decided by MMEngine and "
        "the launcher) and are left to you."
    ),
    fix_safety="It writes exactly what the old key asked for, where the Runner reads it.",
    valid=(
        Example("cuda", "env_cfg = dict(dist_cfg=dict(backend='nccl'), cudnn_benchmark=True)\n"),
        Example("cpu", "model = dict(type='ToyClassifier')\n"),
    ),
    invalid=(
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\ndist_params = dict(backend='nccl')\n",
            message=(
                "top-level `dist_params` is an mmcv-1.x key the Runner ignores: "
                "set `env_cfg.dist_cfg`"
            ),
            location="config.py:2:15",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "\n"
                "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "cudnn_benchmark = True\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n",
            message=(
                "top-level `cudnn_benchmark` is an mmcv-1.x key the Runner "
                "ignores: set `env_cfg.cudnn_benchmark`"
            ),
            location="config.py:2:19",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='nccl'), "
                "cudnn_benchmark=True)\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\nfp16 = dict(loss_scale=512.0)\n",
            message=(
                "top-level `fp16` is an mmcv-1.x key the Runner ignores: use "
                "`optim_wrapper=dict(type='AmpOptimWrapper', ...)`"
            ),
            location="config.py:2:8",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "optim_wrapper = dict(type='AmpOptimWrapper', "
                "optimizer=dict(type='SGD', lr=0.01), loss_scale=512.0)\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\ngpu_ids = [0, 1]\ndevice = 'cuda'\n",
            message=(
                "top-level `gpu_ids` is an mmcv-1.x key the Runner ignores: the "
                "launcher decides the processes"
            ),
            location="config.py:2:11",
            instead="model = dict(type='ToyClassifier')\n",
        ),
    ),
    check=_check,
    fixable=True,
)
