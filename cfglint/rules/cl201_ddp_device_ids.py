"""CL201: a DDP wrapper that will get device_ids=[LOCAL_RANK] on a target MMEngine puts on CPU."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.rules.base import (
    Example,
    Finding,
    Rule,
    RuleContext,
    policy_applicability,
    unknown_finding,
)
from cfglint.rules.wrapper import (
    DEFAULT_WRAPPER,
    WRAPPER_KEY,
    ConfiguredWrapper,
    DefaultWrapper,
    UnknownWrapper,
    wrapper_state,
)
from cfglint.types import (
    FixIntent,
    KeyChange,
    ScalarNode,
    UnknownNode,
    UnknownValueError,
    to_python,
)

CODE = "CL201"

SEED_ERROR = (
    "ValueError: DistributedDataParallel device_ids and output_device arguments only work "
    "with single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], "
    "output_device None, and module parameters {device(type='cpu')}."
)


def _default_wrapper_fix(ctx: RuleContext) -> FixIntent | None:
    # Keep what MMEngine's default wrap did (broadcast_buffers=False, the top-level
    # find_unused_parameters), so the fix changes device_ids and nothing else.
    find_unused: object = False
    node = ctx.config.root.entries.get("find_unused_parameters")
    if node is not None:
        if not isinstance(node, ScalarNode):
            return None
        find_unused = node.value
    wrapper = {
        "type": DEFAULT_WRAPPER,
        "broadcast_buffers": False,
        "find_unused_parameters": find_unused,
        "device_ids": None,
    }
    return FixIntent(
        "Add `model_wrapper_cfg = dict(type='MMDistributedDataParallel', ..., device_ids=None)`",
        (KeyChange((WRAPPER_KEY,), wrapper),),
        policy_applicability(ctx),
    )


def _set_none_fix(ctx: RuleContext) -> FixIntent:
    return FixIntent(
        f"Set `{ctx.key}=None`",
        (KeyChange(tuple(ctx.key.split(".")), None),),
        policy_applicability(ctx),
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    state = wrapper_state(ctx.config)
    target = ctx.target.name
    if isinstance(state, UnknownWrapper):
        yield unknown_finding(ctx, CODE, state.node, WRAPPER_KEY)
    elif isinstance(state, DefaultWrapper):
        yield Finding(
            CODE,
            f"no `{WRAPPER_KEY}`: MMEngine wraps the model in {DEFAULT_WRAPPER}"
            f"(device_ids=[LOCAL_RANK]), which fails on target {target} where the parameters "
            f"stay on the CPU; add `{WRAPPER_KEY}` with `device_ids=None`",
            ctx.key,
            state.node,
            _default_wrapper_fix(ctx),
        )
    elif isinstance(state, ConfiguredWrapper) and state.is_ddp:
        device_ids = state.node.entries.get("device_ids")
        if device_ids is None:
            yield Finding(
                CODE,
                f"`{WRAPPER_KEY}` ({state.type_name}) leaves out `device_ids`: MMEngine then "
                f"injects device_ids=[LOCAL_RANK], which fails on target {target}; write "
                f"`device_ids=None` explicitly (leaving it out is not enough)",
                ctx.key,
                state.node,
                _set_none_fix(ctx),
            )
            return
        if isinstance(device_ids, UnknownNode):
            yield unknown_finding(ctx, CODE, device_ids, ctx.key)
            return
        try:
            value = to_python(device_ids)
        except UnknownValueError as error:
            yield unknown_finding(ctx, CODE, error.node, ctx.key)
            return
        if not ctx.policy.value_ok(value):
            yield Finding(
                CODE,
                f"`device_ids={value!r}` in `{WRAPPER_KEY}`: DDP rejects device ids for a model "
                f"whose parameters are on the CPU, as on target {target}; use `device_ids=None`",
                ctx.key,
                device_ids,
                _set_none_fix(ctx),
            )


RULE = Rule(
    code=CODE,
    name="ddp-device-ids",
    summary="DDP wrapper gets device_ids on a target MMEngine places on CPU",
    what=(
        "A DDP-type model wrapper (`MMDistributedDataParallel`, `MMSeparateDistributedDataParallel`"
        " or `DistributedDataParallel`) without an explicit `device_ids=None`. This includes the "
        "default wrapper MMEngine builds when `model_wrapper_cfg` is absent or `None`, a "
        "`model_wrapper_cfg` that leaves `device_ids` out, and one that sets a list such as `[0]`."
    ),
    why=(
        "`Runner.wrap_model` moves the model to `mmengine.device.get_device()`, which is "
        "`'cpu'` on a CPU host and on a T20 host (MMEngine does not know the GCU device), and "
        "then builds the wrapper with `device_ids=[LOCAL_RANK]` unless the config says "
        "`device_ids=None`: the default is applied with `setdefault`, so leaving the key out "
        "is not enough. "
        "PyTorch's DDP refuses device ids for a CPU module, on every rank (seeds 000 and 001):"
        f"\n\n```\n{SEED_ERROR}\n```"
    ),
    fix_doc=(
        "Adds `device_ids=None` to `model_wrapper_cfg`, or sets it to `None`. When the config has "
        "no `model_wrapper_cfg`, adds `model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
        "broadcast_buffers=False, find_unused_parameters=..., device_ids=None)`, which keeps "
        "what MMEngine's default wrapper did apart from `device_ids`. Safe."
    ),
    valid=(
        Example(
            "t20-gcu",
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n",
        ),
        Example("cpu", "model_wrapper_cfg = dict(type='MMFullyShardedDataParallel')\n"),
        Example("cuda", "model = dict(type='ToyClassifier')\n"),
    ),
    invalid=(
        Example("t20-gcu", "model = dict(type='ToyClassifier')\n"),
        Example(
            "t20-gcu",
            "model_wrapper_cfg = dict(\n"
            "    type='MMDistributedDataParallel',\n"
            "    find_unused_parameters=False,\n"
            "    broadcast_buffers=False,\n"
            ")\n",
        ),
        Example(
            "cpu", "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n"
        ),
    ),
    check=_check,
    fixable=True,
)
