"""CL101: the process-group backend must exist on the target."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief_repr, display_repr
from cfglint.rules.base import Example, Finding, JsonSchema, Rule, RuleContext
from cfglint.rules.schema import value_at_key
from cfglint.rules.values import allowed_text, check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy

CODE = "CL101"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    said = f"`{ctx.key}` defaults to" if is_default else f"`{ctx.key}` is"
    return f"{said} {brief_repr(value)}, which does not work on the target: use {allowed_text(ctx)}"


def _check(ctx: RuleContext) -> Iterator[Finding]:
    fix = ctx.policy.fix
    target_value = fix.value if fix is not None else None
    yield from check_value(ctx, CODE, _describe, f"Set `{ctx.key}` to {display_repr(target_value)}")


def _schema(policy: KeyPolicy) -> JsonSchema:
    return value_at_key(RULE_KEYS[CODE], policy)


RULE = Rule(
    code=CODE,
    name="dist-backend",
    summary="process-group backend not available on the target",
    what=(
        "`env_cfg.dist_cfg.backend` names a `torch.distributed` backend that the target's "
        "hardware provides: `nccl` on CUDA, `gloo` on CPU hosts, `gloo` or `eccl` on T20 GCU "
        "servers. When the key is absent MMEngine's `init_dist` uses `nccl`."
    ),
    why=(
        "`Runner.setup_env` passes `env_cfg.dist_cfg` to `mmengine.dist.init_dist`, which "
        "creates the process group with this backend. `nccl` needs NVIDIA GPUs and their "
        "driver: on a T20 or CPU host the group cannot be created with it. On those hosts "
        "`init_dist` fails even earlier, at `torch.cuda.set_device` (CL102), so the entry point "
        "has to create the process group itself, and MMEngine then never reads "
        "`dist_cfg.backend`. The key still decides the backend wherever the entry point builds "
        "the group from the config, as training scripts ported to T20 servers do "
        "(`init_dist(launcher='pytorch', backend=cfg.env_cfg.dist_cfg.get('backend', 'eccl'))`), "
        "and those projects set `dist_cfg=dict(backend='gloo')` for it. On "
        "`cuda` the target asks for `nccl`: `gloo` runs there but sends GPU collectives through "
        "the host."
    ),
    fix_doc=(
        "Sets the key to the target's backend (`gloo` for `t20-gcu` and `cpu`, `nccl` for `cuda`)."
    ),
    fix_safety="The backend is only used to create the process group.",
    valid=(
        Example("t20-gcu", "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"),
        Example("t20-gcu", "env_cfg = dict(dist_cfg=dict(backend='eccl'))\n"),
        Example("cuda", "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n"),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n",
            message=(
                "`env_cfg.dist_cfg.backend` is 'nccl', which does not work on "
                "the target: use 'gloo' or 'eccl'"
            ),
            location="config.py:2:38",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict())\n",
            message=(
                "`env_cfg.dist_cfg.backend` defaults to 'nccl', which does not "
                "work on the target: use 'gloo'"
            ),
            location="config.py:2:48",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(cudnn_benchmark=False, "
                "dist_cfg=dict(backend='gloo'))\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
            message=(
                "`env_cfg.dist_cfg.backend` is 'gloo', which does not work on "
                "the target: use 'nccl'"
            ),
            location="config.py:2:38",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
)
