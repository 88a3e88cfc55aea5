"""CL301: cuDNN autotuning requested on a target without cuDNN."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import display_repr
from cfglint.rules.base import Example, Finding, JsonSchema, Rule, RuleContext
from cfglint.rules.schema import FALSY, value_at_key
from cfglint.rules.values import check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy

CODE = "CL301"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return (
        f"`{ctx.key}={display_repr(value)}` asks for cuDNN autotuning, but target "
        f"{ctx.target.name} "
        "has no cuDNN"
    )


def _harmless(value: object) -> bool:
    # MMEngine only acts on a true value: `if env_cfg.get('cudnn_benchmark'):`.
    return not value


def _check(ctx: RuleContext) -> Iterator[Finding]:
    yield from check_value(ctx, CODE, _describe, f"Set `{ctx.key}` to False", _harmless)


def _schema(policy: KeyPolicy) -> JsonSchema:
    return value_at_key(RULE_KEYS[CODE], policy, FALSY)


RULE = Rule(
    code=CODE,
    name="cudnn-benchmark",
    summary="cuDNN benchmark mode on a target without cuDNN",
    what=(
        "`env_cfg.cudnn_benchmark` is true for a target that has no cuDNN (`cpu`, `t20-gcu`). "
        "`None`, `0` and other false values pass: MMEngine ignores them."
    ),
    why=(
        "MMEngine's `Runner.setup_env` does `if env_cfg.get('cudnn_benchmark'): "
        "torch.backends.cudnn.benchmark = True`. Without cuDNN the flag "
        "does nothing at best; on vendor builds of PyTorch it can route convolutions through "
        "CUDA-only code paths. It also tells a reader the config was never ported. The T20 "
        "seed config says `cudnn_benchmark=False,  # GCU环境下禁用cudnn` (disable cuDNN on GCU)."
    ),
    fix_doc="Sets `env_cfg.cudnn_benchmark=False`. Safe: there is no cuDNN to tune.",
    valid=(
        Example("t20-gcu", "env_cfg = dict(cudnn_benchmark=False)\n"),
        Example("cuda", "env_cfg = dict(cudnn_benchmark=True)\n"),
        Example("t20-gcu", "env_cfg = dict(cudnn_benchmark=None)\n"),
        Example("cpu", "env_cfg = dict(cudnn_benchmark=0, dist_cfg=dict(backend='gloo'))\n"),
    ),
    invalid=(
        Example("t20-gcu", "env_cfg = dict(cudnn_benchmark=True)\n"),
        Example("cpu", "env_cfg = dict(cudnn_benchmark=True, dist_cfg=dict(backend='gloo'))\n"),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
)
