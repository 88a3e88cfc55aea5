"""CL203: a literal device_ids list on CUDA pins every rank to the same GPU."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from cfglint.reprs import brief_repr
from cfglint.rules.base import (
    Example,
    Finding,
    JsonSchema,
    Rule,
    RuleContext,
    fix_from_policy,
    unknown_finding,
)
from cfglint.rules.schema import EMPTY_LIST, accepted_values, in_ddp_wrapper
from cfglint.rules.wrapper import ConfiguredWrapper, ddp_ignores, wrapper_state
from cfglint.targets.model import KeyPolicy
from cfglint.types import SequenceNode, UnknownNode, UnknownValueError, to_python

CODE = "CL203"


def _check(ctx: RuleContext) -> Iterator[Finding]:
    state = wrapper_state(ctx.config)
    if not (isinstance(state, ConfiguredWrapper) and state.is_ddp):
        return
    ctx = replace(ctx, key=f"{state.key}.device_ids")
    node = state.node.entries.get("device_ids")
    if node is None:
        return
    if isinstance(node, UnknownNode):
        yield unknown_finding(ctx, CODE, node, ctx.key)
        return
    try:
        value = to_python(node)
    except UnknownValueError as error:
        # A list computed per rank, `[int(os.environ['LOCAL_RANK'])]`, is what this rule asks for.
        if not isinstance(node, SequenceNode):
            yield unknown_finding(ctx, CODE, error.node, ctx.key)
        return
    if not ctx.policy.value_ok(value) and not ddp_ignores(value):
        yield Finding(
            CODE,
            f"`device_ids={brief_repr(value)}` in `{state.key}` pins every rank to one GPU: "
            "remove it (MMEngine passes [LOCAL_RANK])",
            ctx.key,
            node,
            fix_from_policy(ctx, f"Remove `{ctx.key}`"),
        )


def _schema(policy: KeyPolicy) -> JsonSchema:
    return in_ddp_wrapper({"properties": {"device_ids": accepted_values(policy, EMPTY_LIST)}})


RULE = Rule(
    code=CODE,
    name="literal-device-ids",
    summary="literal device_ids list pins every rank to one GPU",
    what=(
        "`model_wrapper_cfg.device_ids` is a literal list such as `[0]` for a DDP wrapper "
        "on `cuda`. A list computed per rank (`[int(os.environ['LOCAL_RANK'])]`) and an empty "
        "list (PyTorch treats it like `None`) pass; for a FlexibleRunner with a `DDPStrategy`, "
        "`strategy.model_wrapper.device_ids` (see CL201)."
    ),
    why=(
        "Each of the N processes of a distributed job gets the same list, so every rank wraps "
        "its replica on GPU 0 while its parameters sit on `cuda:LOCAL_RANK`. DDP then fails "
        "with a device mismatch, or all ranks crowd onto one GPU and run out of memory. "
        "A list of several devices is refused outright: `ValueError: device_ids can only be "
        "None or contain a single element.` MMEngine already passes `device_ids=[LOCAL_RANK]` "
        "when the key is absent."
    ),
    fix_doc="Removes the key: MMEngine then passes `device_ids=[LOCAL_RANK]`.",
    fix_safety="With one process per GPU, `[LOCAL_RANK]` is what was meant.",
    valid=(
        Example("cuda", "model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n"),
        Example("cuda", "model_wrapper_cfg = dict(device_ids=None)\n"),
        Example("t20-gcu", "model_wrapper_cfg = dict(device_ids=None)\n"),
        Example(
            "cuda",
            "import os\nmodel_wrapper_cfg = dict(device_ids=[int(os.environ['LOCAL_RANK'])])\n",
        ),
        Example("cuda", "model_wrapper_cfg = dict(device_ids=[])\n"),
    ),
    invalid=(
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n",
            message=(
                "`device_ids=[0]` in `model_wrapper_cfg` pins every rank to one "
                "GPU: remove it (MMEngine passes [LOCAL_RANK])"
            ),
            location="config.py:2:71",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(device_ids=[0, 1], output_device=0)\n",
            message=(
                "`device_ids=[0, 1]` in `model_wrapper_cfg` pins every rank to "
                "one GPU: remove it (MMEngine passes [LOCAL_RANK])"
            ),
            location="config.py:2:37",
            fixed=(
                "model = dict(type='ToyClassifier')\nmodel_wrapper_cfg = dict(output_device=0)\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
)
