"""CL202: output_device set for a DDP wrapper on a target MMEngine places on CPU."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, JsonSchema, Rule, RuleContext
from cfglint.rules.schema import absent_fails, accepted_values, in_ddp_wrapper
from cfglint.rules.values import check_value
from cfglint.rules.wrapper import ConfiguredWrapper, wrapper_state
from cfglint.targets.model import KeyPolicy

CODE = "CL202"


def _wrapper(ctx: RuleContext) -> str:
    return ctx.key.rsplit(".", 1)[0]


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    shown = f"`output_device={brief_repr(value)}` in `{_wrapper(ctx)}`"
    if not value:
        # PyTorch checks `if device_ids or output_device`: a false value slips through.
        return f"{shown} names a GPU for a CPU model (DDP ignores a false one); use None"
    return f"{shown}: DDP rejects an output device for a CPU model; use None"


def _check(ctx: RuleContext) -> Iterator[Finding]:
    state = wrapper_state(ctx.config)
    # Only a configured DDP wrapper can carry output_device; CL201 covers the rest.
    if isinstance(state, ConfiguredWrapper) and state.is_ddp:
        at = replace(ctx, key=f"{state.key}.output_device")
        yield from check_value(at, CODE, _describe, f"Set `{at.key}=None`")


def _schema(policy: KeyPolicy) -> JsonSchema:
    output_device: JsonSchema = {"properties": {"output_device": accepted_values(policy)}}
    if absent_fails(policy):
        output_device["required"] = ["output_device"]
    return in_ddp_wrapper(output_device)


RULE = Rule(
    code=CODE,
    name="ddp-output-device",
    summary="DDP output_device on a target MMEngine places on CPU",
    what=(
        "`model_wrapper_cfg.output_device` is set to something other than `None` on `cpu` "
        "or `t20-gcu`, for a DDP wrapper (see CL201 for which wrappers are DDP ones); for a "
        "FlexibleRunner with a `DDPStrategy`, `strategy.model_wrapper.output_device`."
    ),
    why=(
        "The parameters are on the CPU there (see CL201). PyTorch's DDP checks "
        "`if device_ids or output_device:` for a CPU module and raises "
        "`ValueError: DistributedDataParallel device_ids and output_device arguments only work "
        "with single-device/multiple-device GPU modules or CPU modules ...` for any non-zero "
        "device. `output_device=0` gets through only because 0 is false: it names a GPU index, "
        "which means nothing for a module on the CPU, and any other index fails. A config with "
        "`device_ids=[0], output_device=0` fails on `device_ids` (CL201)."
    ),
    fix_doc="Sets `output_device=None`.",
    fix_safety="DDP ignores the output device of a CPU module.",
    valid=(
        Example("t20-gcu", "model_wrapper_cfg = dict(device_ids=None, output_device=None)\n"),
        Example("cuda", "model_wrapper_cfg = dict(output_device=0)\n"),
        Example(
            "t20-gcu",
            "runner_type = 'FlexibleRunner'\n"
            "model_wrapper_cfg = dict(device_ids=None, output_device=1)\n",
        ),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(\n"
            "    type='MMDistributedDataParallel', device_ids=[0], output_device=0)\n",
            message=(
                "`output_device=0` in `model_wrapper_cfg` names a GPU for a CPU "
                "model (DDP ignores a false one); use None"
            ),
            location="config.py:3:69",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(\n"
                "    type='MMDistributedDataParallel', device_ids=[0], "
                "output_device=None)\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(device_ids=None, output_device='cpu')\n",
            message=(
                "`output_device='cpu'` in `model_wrapper_cfg`: DDP rejects an "
                "output device for a CPU model; use None"
            ),
            location="config.py:2:57",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(device_ids=None, output_device=None)\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(device_ids=None, output_device=1)\n",
            message=(
                "`output_device=1` in `model_wrapper_cfg`: DDP rejects an output "
                "device for a CPU model; use None"
            ),
            location="config.py:2:57",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(device_ids=None, output_device=None)\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n"
            "runner_type = 'FlexibleRunner'\n"
            "strategy = dict(\n"
            "    type='DDPStrategy', model_wrapper=dict(device_ids=None, output_device=1))\n",
            message=(
                "`output_device=1` in `strategy.model_wrapper`: DDP rejects an "
                "output device for a CPU model; use None"
            ),
            location="config.py:4:75",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "runner_type = 'FlexibleRunner'\n"
                "strategy = dict(\n"
                "    type='DDPStrategy', model_wrapper=dict(device_ids=None, "
                "output_device=None))\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
)
