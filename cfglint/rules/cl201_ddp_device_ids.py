"""CL201: a DDP wrapper that will get device_ids=[LOCAL_RANK] on a target MMEngine puts on CPU."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief, brief_repr
from cfglint.rules.base import (
    UNKNOWN_VALUE_CODE,
    Example,
    Finding,
    JsonSchema,
    LaunchContext,
    Rule,
    RuleContext,
    policy_applicability,
    unknown_finding,
)
from cfglint.rules.launch_facts import events
from cfglint.rules.schema import EMPTY_LIST, IS_DDP_WRAPPER, accepted_values, at_wrapper
from cfglint.rules.wrapper import (
    DDP_STRATEGY,
    DEFAULT_WRAPPER,
    STRATEGY_KEY,
    WRAPPER_KEY,
    ConfiguredWrapper,
    DefaultWrapper,
    UnknownWrapper,
    ddp_ignores,
    wrapper_state,
)
from cfglint.targets.model import KeyPolicy
from cfglint.types import (
    Applicability,
    FixIntent,
    KeyChange,
    ScalarNode,
    SequenceNode,
    SpanChange,
    UnknownNode,
    UnknownValueError,
    to_python,
)

CODE = "CL201"

CPU_MODULE_DDP_ERROR = (
    "ValueError: DistributedDataParallel device_ids and output_device arguments only work "
    "with single-device/multiple-device GPU modules or CPU modules, but got device_ids [0], "
    "output_device None, and module parameters {device(type='cpu')}."
)


def _strategy_wrapper_fix(ctx: RuleContext, state: DefaultWrapper) -> FixIntent:
    # DDPStrategy's default wrapper is dict(type='MMDistributedDataParallel',
    # broadcast_buffers=False): keep it, with device_ids=None.
    wrapper = {"type": DEFAULT_WRAPPER, "broadcast_buffers": False, "device_ids": None}
    if state.no_strategy:
        change = KeyChange((STRATEGY_KEY,), {"type": DDP_STRATEGY, "model_wrapper": wrapper})
        message = (
            f"Add `{STRATEGY_KEY} = dict(type='{DDP_STRATEGY}', "
            "model_wrapper=dict(..., device_ids=None))`"
        )
    else:
        change = KeyChange(tuple(state.key.split(".")), wrapper)
        message = (
            f"Add `model_wrapper=dict(type='{DEFAULT_WRAPPER}', ..., device_ids=None)` "
            f"to `{STRATEGY_KEY}`"
        )
    return FixIntent(message, (change,), policy_applicability(ctx))


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


def _set_none_fix(ctx: RuleContext, wrapper_key: str = WRAPPER_KEY) -> FixIntent:
    key = f"{wrapper_key}.device_ids"
    return FixIntent(
        f"Set `{key}=None`",
        (KeyChange(tuple(key.split(".")), None),),
        policy_applicability(ctx),
    )


class _Source:
    """Stands for an unknown value in a message: shows its source text."""

    def __init__(self, node: UnknownNode) -> None:
        self.source = node.source

    def __repr__(self) -> str:
        return self.source


def _check(ctx: RuleContext) -> Iterator[Finding]:
    state = wrapper_state(ctx.config)
    if isinstance(state, UnknownWrapper):
        yield unknown_finding(ctx, CODE, state.node, WRAPPER_KEY)
    elif isinstance(state, DefaultWrapper) and state.in_strategy:
        missing = STRATEGY_KEY if state.no_strategy else state.key
        yield Finding(
            CODE,
            f"no `{missing}`: {DDP_STRATEGY}'s default wrap gets device_ids=[LOCAL_RANK], which "
            "fails for a CPU model",
            f"{state.key}.device_ids",
            state.node or state.anchor,
            _strategy_wrapper_fix(ctx, state),
        )
    elif isinstance(state, DefaultWrapper):
        yield Finding(
            CODE,
            f"no `{WRAPPER_KEY}`: the default DDP wrap gets device_ids=[LOCAL_RANK], which fails "
            "for a CPU model",
            ctx.key,
            state.node,
            _default_wrapper_fix(ctx),
        )
    elif isinstance(state, ConfiguredWrapper):
        if state.kind == "ddp":
            yield from _check_ddp(ctx, state)
        elif state.kind == "custom":
            yield from _check_custom(ctx, state)


def _check_ddp(ctx: RuleContext, state: ConfiguredWrapper) -> Iterator[Finding]:
    key = f"{state.key}.device_ids"
    device_ids = state.node.entries.get("device_ids")
    if device_ids is None:
        yield Finding(
            CODE,
            f"`{state.key}` leaves out `device_ids`, so MMEngine passes [LOCAL_RANK]: write "
            "`device_ids=None`",
            key,
            state.node,
            _set_none_fix(ctx, state.key),
        )
        return
    if isinstance(device_ids, UnknownNode):
        yield unknown_finding(ctx, CODE, device_ids, key)
        return
    # A list is non-empty whatever its items are: `[int(os.environ['LOCAL_RANK'])]` fails too.
    if not (isinstance(device_ids, SequenceNode) and device_ids.items):
        try:
            value = to_python(device_ids)
        except UnknownValueError as error:
            yield unknown_finding(ctx, CODE, error.node, key)
            return
        if ctx.policy.value_ok(value) or ddp_ignores(value):
            return
    shown = to_python(device_ids, _Source)
    yield Finding(
        CODE,
        f"`device_ids={brief_repr(shown)}` in `{state.key}`: DDP rejects device ids for a CPU "
        "model; use None",
        key,
        device_ids,
        _set_none_fix(ctx, state.key),
    )


def _check_custom(ctx: RuleContext, state: ConfiguredWrapper) -> Iterator[Finding]:
    device_ids = state.node.entries.get("device_ids")
    if isinstance(device_ids, ScalarNode) and device_ids.value is None:
        return
    type_node = state.node.entries.get("type")
    yield Finding(
        UNKNOWN_VALUE_CODE,
        f"`{brief(state.type_name)}` may subclass DDP and get device_ids=[LOCAL_RANK]: write "
        f"`device_ids=None` in `{state.key}`",
        f"{state.key}.device_ids",
        type_node,
        needed_by=CODE,
        severity="warning",
    )


def _launch_check(ctx: LaunchContext) -> Iterator[Finding]:
    """A DDP wrapper the entry script builds itself (`DistributedDataParallel(model,
    device_ids=[local_rank])`, or re-wrapping `runner.model`): the model is on the CPU there
    as well."""
    if ctx.policy is None:
        return
    for event in events(ctx.world, "ddp_wrap"):
        device_ids = event.values.get("device_ids")
        if device_ids is None:
            continue  # DDP's own default is None
        wrapper = event.name.rsplit(".", 1)[-1]
        if isinstance(device_ids, UnknownNode):
            yield Finding(
                UNKNOWN_VALUE_CODE,
                f"cannot evaluate `{brief(device_ids.source)}`; CL201 needs the "
                f"device_ids of this {wrapper}",
                "device_ids",
                device_ids,
                needed_by=CODE,
            )
            continue
        if not (isinstance(device_ids, SequenceNode) and device_ids.items):
            try:
                value = to_python(device_ids)
            except UnknownValueError:
                continue
            if ctx.policy.value_ok(value) or ddp_ignores(value):
                continue
        shown = to_python(device_ids, _Source)
        yield Finding(
            CODE,
            f"`{wrapper}(..., device_ids={brief_repr(shown)})`: DDP rejects device ids for a CPU "
            "model; use None",
            "device_ids",
            device_ids,
            FixIntent(
                "Set `device_ids=None`",
                (),
                Applicability.SAFE,
                anchored=(SpanChange(device_ids.origin.span, (), None),),
            ),
        )


def _schema(policy: KeyPolicy) -> JsonSchema:
    # Whether a custom wrapper type subclasses DDP is a run-time question: the schema lets it
    # pass, as the check does (it warns instead).
    return at_wrapper(
        {
            "not": {"type": "null"},
            "if": IS_DDP_WRAPPER,
            "then": {
                "required": ["device_ids"],
                "properties": {"device_ids": accepted_values(policy, EMPTY_LIST)},
            },
        },
        required=True,
    )


_CONFIG_WITH_WRAPPER = (
    "model = dict(type='ToyClassifier')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
_SCRIPT_HEAD = (
    "import argparse\n"
    "from mmengine.config import Config\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "cfg = Config.fromfile(parser.parse_args().config)\n"
)
_SCRIPT_OVERRIDE = (
    f"{_SCRIPT_HEAD}"
    "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', broadcast_buffers=False)\n"
    "Runner.from_cfg(cfg).train()\n"
)
_SCRIPT_OVERRIDE_THEN_NONE = _SCRIPT_OVERRIDE.replace(
    "Runner.from_cfg", "cfg.model_wrapper_cfg.device_ids = None\nRunner.from_cfg"
)
_SCRIPT_REWRAP = (
    f"{_SCRIPT_HEAD}"
    "from mmengine.model import MMDistributedDataParallel\n"
    "runner = Runner.from_cfg(cfg)\n"
    "runner.model = MMDistributedDataParallel(runner.model, device_ids=[0])\n"
    "runner.train()\n"
)

RULE = Rule(
    code=CODE,
    name="ddp-device-ids",
    summary="DDP wrapper gets device_ids on a target MMEngine places on CPU",
    what=(
        "A DDP-type model wrapper (`MMDistributedDataParallel`, `MMSeparateDistributedDataParallel`"
        " or `DistributedDataParallel`) without an explicit `device_ids=None`. This includes the "
        "default wrapper MMEngine builds when `model_wrapper_cfg` is absent or `None`, a "
        "`model_wrapper_cfg` that leaves `device_ids` out, and one that sets a non-empty list "
        "such as `[0]` or `[int(os.environ['LOCAL_RANK'])]` (whatever its items are, a "
        "non-empty list fails). An empty list passes: PyTorch treats it like `None`.\n\n"
        "Wrappers MMEngine registers that are not DDP subclasses (`MMFullyShardedDataParallel`, "
        "`DataParallel`, the DeepSpeed and ColossalAI wrappers) get no `device_ids` and are not "
        "checked. For a wrapper type MMEngine does not register itself (your own "
        "`MyCustomDDP`), MMEngine decides at run time with `issubclass(type, "
        "DistributedDataParallel)`; cfglint cannot, so it reports a CL906 warning unless the "
        "config says `device_ids=None`.\n\n"
        "A config with `runner_type='FlexibleRunner'` never uses `model_wrapper_cfg`: its "
        "`strategy` wraps the model. A `DDPStrategy` (also what a FlexibleRunner builds under a "
        "distributed launch when the config has no `strategy`) wraps it in "
        "`strategy.model_wrapper`, by default `MMDistributedDataParallel` with "
        "`device_ids=[LOCAL_RANK]` (mmengine/_strategy/distributed.py), and is checked the same "
        "way. Other strategies (FSDP, DeepSpeed, ColossalAI, one device) build no DDP wrapper.\n\n"
        "Through a launch (a launcher script, `--entry`, or `entry-points`), the check runs on "
        "the config as the entry script hands it to the Runner: a script that overwrites "
        "`cfg.model_wrapper_cfg` without `device_ids` is reported at the script's line, even "
        "when the config file is right. A DDP wrapper the script builds itself "
        "(`MMDistributedDataParallel(runner.model, device_ids=[local_rank])`) is checked too. "
        "When the entry script imports the target's vendor library first (`torch_gcu."
        "transfer_to_gcu` on `t20-gcu`), the model lands on the accelerator and "
        "`device_ids=[LOCAL_RANK]` is right: nothing is reported."
    ),
    why=(
        "`Runner.wrap_model` moves the model to `mmengine.device.get_device()`, which is "
        "`'cpu'` on a CPU host and on a T20 host (MMEngine does not know the GCU device), and "
        "then builds the wrapper with `device_ids=[LOCAL_RANK]` unless the config says "
        "`device_ids=None`: the default is applied with `setdefault`, so leaving the key out "
        "is not enough. "
        "PyTorch's DDP refuses device ids for a CPU module, on every rank:"
        f"\n\n```\n{CPU_MODULE_DDP_ERROR}\n```"
    ),
    fix_doc=(
        "Adds `device_ids=None` to `model_wrapper_cfg`, or sets it to `None`. When the config has "
        "no `model_wrapper_cfg`, adds `model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
        "broadcast_buffers=False, find_unused_parameters=..., device_ids=None)`, which keeps "
        "what MMEngine's default wrapper did apart from `device_ids`; for a FlexibleRunner, "
        "adds `model_wrapper=dict(type='MMDistributedDataParallel', broadcast_buffers=False, "
        "device_ids=None)` to `strategy` (or a `DDPStrategy` with it), DDPStrategy's default "
        "apart from `device_ids`. A value the entry script "
        "sets is fixed in the script, where it is written."
    ),
    fix_safety=(
        "`device_ids=None` is what DDP needs for a model on the CPU, and every other argument "
        "of the wrapper stays what MMEngine would have passed."
    ),
    valid=(
        Example(
            "t20-gcu",
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n",
        ),
        Example("cpu", "model_wrapper_cfg = dict(type='MMFullyShardedDataParallel')\n"),
        Example("t20-gcu", "model_wrapper_cfg = dict(device_ids=[])\n"),
        Example(
            "t20-gcu",
            "runner_type = 'FlexibleRunner'\nstrategy = dict(type='FSDPStrategy')\n",
        ),
        Example(
            "t20-gcu",
            "runner_type = 'FlexibleRunner'\n"
            "strategy = dict(type='DDPStrategy', model_wrapper=dict(device_ids=None))\n",
        ),
        Example("cuda", "model = dict(type='ToyClassifier')\n"),
        Example("t20-gcu", _CONFIG_WITH_WRAPPER, _SCRIPT_OVERRIDE_THEN_NONE),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n",
            message=(
                "no `model_wrapper_cfg`: the default DDP wrap gets "
                "device_ids=[LOCAL_RANK], which fails for a CPU model"
            ),
            location="config.py:1:1",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "\n"
                "model_wrapper_cfg = dict(\n"
                "    type='MMDistributedDataParallel',\n"
                "    broadcast_buffers=False,\n"
                "    find_unused_parameters=False,\n"
                "    device_ids=None,\n"
                ")\n"
            ),
        ),
        Example(
            "t20-gcu",
            "from mmengine.model import MMDistributedDataParallel\n"
            "\n"
            "model = dict(type='ToyClassifier')\n"
            "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
            "model_wrapper_cfg = dict(type=MMDistributedDataParallel)\n",
            message=(
                "`model_wrapper_cfg` leaves out `device_ids`, so MMEngine passes "
                "[LOCAL_RANK]: write `device_ids=None`"
            ),
            location="config.py:5:21",
            fixed=(
                "from mmengine.model import MMDistributedDataParallel\n"
                "\n"
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
                "model_wrapper_cfg = dict(type=MMDistributedDataParallel, device_ids=None)\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\nmodel_wrapper_cfg = None\n",
            message=(
                "no `model_wrapper_cfg`: the default DDP wrap gets "
                "device_ids=[LOCAL_RANK], which fails for a CPU model"
            ),
            location="config.py:2:21",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(\n"
                "    type='MMDistributedDataParallel',\n"
                "    broadcast_buffers=False,\n"
                "    find_unused_parameters=False,\n"
                "    device_ids=None,\n"
                ")\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(\n"
            "    type='MMDistributedDataParallel',\n"
            "    find_unused_parameters=False,\n"
            "    broadcast_buffers=False,\n"
            ")\n",
            message=(
                "`model_wrapper_cfg` leaves out `device_ids`, so MMEngine passes "
                "[LOCAL_RANK]: write `device_ids=None`"
            ),
            location="config.py:2:21",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(\n"
                "    type='MMDistributedDataParallel',\n"
                "    find_unused_parameters=False,\n"
                "    broadcast_buffers=False,\n"
                "    device_ids=None,\n"
                ")\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n",
            message=(
                "`device_ids=[0]` in `model_wrapper_cfg`: DDP rejects device ids "
                "for a CPU model; use None"
            ),
            location="config.py:2:71",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
                "device_ids=None)\n"
            ),
        ),
        Example(
            "t20-gcu",
            "import os\nmodel = dict(type='ToyClassifier')\n"
            "model_wrapper_cfg = dict(device_ids=[int(os.environ['LOCAL_RANK'])])\n",
            message=(
                "`device_ids=[int(os.environ['LOCAL_RANK'])]` in "
                "`model_wrapper_cfg`: DDP rejects device ids for a CPU model; "
                "use None"
            ),
            location="config.py:3:37",
            fixed=(
                "import os\n"
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(device_ids=None)\n"
            ),
        ),
        Example(
            "t20-gcu",
            "runner_type = 'FlexibleRunner'\nmodel = dict(type='ToyClassifier')\n",
            message=(
                "no `strategy`: DDPStrategy's default wrap gets "
                "device_ids=[LOCAL_RANK], which fails for a CPU model"
            ),
            location="config.py:1:1",
            fixed=(
                "runner_type = 'FlexibleRunner'\n"
                "model = dict(type='ToyClassifier')\n"
                "\n"
                "strategy = dict(\n"
                "    type='DDPStrategy',\n"
                "    model_wrapper=dict(type='MMDistributedDataParallel', "
                "broadcast_buffers=False, device_ids=None),\n"
                ")\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "runner_type = 'FlexibleRunner'\n"
            "strategy = dict(\n"
            "    type='DDPStrategy', model_wrapper=dict(type='MMDistributedDataParallel'))\n",
            message=(
                "`strategy.model_wrapper` leaves out `device_ids`, so MMEngine "
                "passes [LOCAL_RANK]: write `device_ids=None`"
            ),
            location="config.py:4:39",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "runner_type = 'FlexibleRunner'\n"
                "strategy = dict(\n"
                "    type='DDPStrategy', "
                "model_wrapper=dict(type='MMDistributedDataParallel', "
                "device_ids=None))\n"
            ),
        ),
        Example(
            "t20-gcu",
            _CONFIG_WITH_WRAPPER,
            _SCRIPT_OVERRIDE,
            message=(
                "`model_wrapper_cfg` leaves out `device_ids`, so MMEngine passes "
                "[LOCAL_RANK]: write `device_ids=None`"
            ),
            location="entry.py:7:25",
            fixed=(
                "import argparse\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "cfg = Config.fromfile(parser.parse_args().config)\n"
                "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
                "broadcast_buffers=False, device_ids=None)\n"
                "Runner.from_cfg(cfg).train()\n"
            ),
        ),
        Example(
            "cpu",
            _CONFIG_WITH_WRAPPER,
            _SCRIPT_REWRAP,
            message=(
                "`MMDistributedDataParallel(..., device_ids=[0])`: DDP rejects "
                "device ids for a CPU model; use None"
            ),
            location="entry.py:9:67",
            fixed=(
                "import argparse\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "cfg = Config.fromfile(parser.parse_args().config)\n"
                "from mmengine.model import MMDistributedDataParallel\n"
                "runner = Runner.from_cfg(cfg)\n"
                "runner.model = MMDistributedDataParallel(runner.model, "
                "device_ids=None)\n"
                "runner.train()\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
    launch_check=_launch_check,
)
