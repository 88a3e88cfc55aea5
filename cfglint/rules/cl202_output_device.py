"""CL202: output_device set for a DDP wrapper on a target MMEngine places on CPU."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.rules.base import Example, Finding, Rule, RuleContext
from cfglint.rules.values import check_value
from cfglint.rules.wrapper import ConfiguredWrapper, wrapper_state

CODE = "CL202"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return (
        f"`output_device={value!r}` in `model_wrapper_cfg`: DDP rejects an output device for a "
        f"model whose parameters are on the CPU, as on target {ctx.target.name}; use None"
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    state = wrapper_state(ctx.config)
    # Only a configured DDP wrapper can carry output_device; CL201 covers the rest.
    if isinstance(state, ConfiguredWrapper) and state.is_ddp:
        yield from check_value(ctx, CODE, _describe, f"Set `{ctx.key}=None`")


RULE = Rule(
    code=CODE,
    name="ddp-output-device",
    summary="DDP output_device on a target MMEngine places on CPU",
    what=(
        "`model_wrapper_cfg.output_device` is set to something other than `None` on `cpu` "
        "or `t20-gcu`."
    ),
    why=(
        "The parameters are on the CPU there (see CL201), and PyTorch's DDP accepts "
        "`output_device` only for single-device GPU modules: the wrap fails with the same "
        "`ValueError: DistributedDataParallel device_ids and output_device arguments only work "
        "with single-device/multiple-device GPU modules or CPU modules ...` as seed 000, "
        "which had `device_ids=[0], output_device=0`."
    ),
    fix_doc="Sets `output_device=None`. Safe.",
    valid=(
        Example("t20-gcu", "model_wrapper_cfg = dict(device_ids=None, output_device=None)\n"),
        Example("cuda", "model_wrapper_cfg = dict(output_device=0)\n"),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model_wrapper_cfg = dict(\n"
            "    type='MMDistributedDataParallel', device_ids=[0], output_device=0)\n",
        ),
        Example("cpu", "model_wrapper_cfg = dict(device_ids=None, output_device='cpu')\n"),
    ),
    check=_check,
    fixable=True,
)
