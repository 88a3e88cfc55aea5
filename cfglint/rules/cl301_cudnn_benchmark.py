"""CL301: cuDNN autotuning requested on a target without cuDNN."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, JsonSchema, LaunchContext, Rule, RuleContext
from cfglint.rules.launch_facts import events
from cfglint.rules.schema import FALSY, value_at_key
from cfglint.rules.values import check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy
from cfglint.types import Applicability, FixIntent, ScalarNode, SpanChange

CODE = "CL301"
CUDNN_FLAG = "torch.backends.cudnn.benchmark"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return f"`{ctx.key}={brief_repr(value)}` asks for cuDNN autotuning, but the target has no cuDNN"


def _harmless(value: object) -> bool:
    # MMEngine only acts on a true value: `if env_cfg.get('cudnn_benchmark'):`.
    return not value


def _check(ctx: RuleContext) -> Iterator[Finding]:
    yield from check_value(ctx, CODE, _describe, f"Set `{ctx.key}` to False", _harmless)


def _launch_check(ctx: LaunchContext) -> Iterator[Finding]:
    """`torch.backends.cudnn.benchmark = True` in the entry script: what the key asks for."""
    if ctx.policy is None:
        return
    for event in events(ctx.world, "module_setting"):
        value = event.values.get("value")
        if event.name != CUDNN_FLAG or not isinstance(value, ScalarNode) or not value.value:
            continue
        if ctx.policy.value_ok(value.value):
            continue
        yield Finding(
            CODE,
            f"`{CUDNN_FLAG} = {brief_repr(value.value)}` asks for cuDNN autotuning, but the "
            "target has no cuDNN",
            CUDNN_FLAG,
            value,
            FixIntent(
                "Set it to False",
                (),
                Applicability.SAFE,
                anchored=(SpanChange(value.origin.span, (), False),),
            ),
        )


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
        "users' own T20 config says `cudnn_benchmark=False,  # GCU环境下禁用cudnn` (disable "
        "cuDNN on GCU). Through a launch, an entry script that sets "
        "`torch.backends.cudnn.benchmark = True` itself is reported at that line."
    ),
    fix_doc=("Sets `env_cfg.cudnn_benchmark=False` (in the entry script: the flag to `False`)."),
    fix_safety="There is no cuDNN to tune.",
    valid=(
        Example("t20-gcu", "env_cfg = dict(cudnn_benchmark=False)\n"),
        Example("cuda", "env_cfg = dict(cudnn_benchmark=True)\n"),
        Example("t20-gcu", "env_cfg = dict(cudnn_benchmark=None)\n"),
        Example("cpu", "env_cfg = dict(cudnn_benchmark=0, dist_cfg=dict(backend='gloo'))\n"),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(cudnn_benchmark=True)\n",
            message=(
                "`env_cfg.cudnn_benchmark=True` asks for cuDNN autotuning, but "
                "the target has no cuDNN"
            ),
            location="config.py:2:32",
            fixed=("model = dict(type='ToyClassifier')\nenv_cfg = dict(cudnn_benchmark=False)\n"),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "env_cfg = dict(cudnn_benchmark=True, dist_cfg=dict(backend='gloo'))\n",
            message=(
                "`env_cfg.cudnn_benchmark=True` asks for cuDNN autotuning, but "
                "the target has no cuDNN"
            ),
            location="config.py:2:32",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(cudnn_benchmark=False, "
                "dist_cfg=dict(backend='gloo'))\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n",
            "import argparse\n"
            "import torch\n"
            "from mmengine.config import Config\n"
            "from mmengine.runner import Runner\n"
            "parser = argparse.ArgumentParser()\n"
            "parser.add_argument('config')\n"
            "cfg = Config.fromfile(parser.parse_args().config)\n"
            "torch.backends.cudnn.benchmark = True\n"
            "Runner.from_cfg(cfg).train()\n",
            message=(
                "`torch.backends.cudnn.benchmark = True` asks for cuDNN "
                "autotuning, but the target has no cuDNN"
            ),
            location="entry.py:8:34",
            fixed=(
                "import argparse\n"
                "import torch\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "cfg = Config.fromfile(parser.parse_args().config)\n"
                "torch.backends.cudnn.benchmark = False\n"
                "Runner.from_cfg(cfg).train()\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
    schema=_schema,
    launch_check=_launch_check,
)
