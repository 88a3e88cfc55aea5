"""CL102: a launcher whose init_dist path calls torch.cuda.set_device on a non-CUDA target."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.codes import UNKNOWN_VALUE
from cfglint.reprs import brief, brief_repr
from cfglint.rules.base import Example, Finding, JsonSchema, LaunchContext, Rule, RuleContext
from cfglint.rules.launch_facts import events, group_before_runner, origin_at
from cfglint.rules.schema import value_at_key
from cfglint.rules.values import check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy
from cfglint.types import ScalarNode, UnknownNode

CODE = "CL102"
DRIVER_ERROR = "RuntimeError: Found no NVIDIA driver on your system"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return (
        f"`launcher={brief_repr(value)}`: init_dist's torch.cuda.set_device fails on the target; "
        "create the process group first"
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    # An entry script that creates the process group first makes the Runner skip init_dist.
    if ctx.launch is not None and group_before_runner(ctx.launch):
        return
    yield from check_value(ctx, CODE, _describe, "")


def _launch_check(ctx: LaunchContext) -> Iterator[Finding]:
    """The entry script's own `init_dist(launcher=...)` call."""
    policy = ctx.policy
    if policy is None:
        return
    for event in events(ctx.world, "init_dist"):
        launcher = event.values.get("launcher")
        if isinstance(launcher, UnknownNode):
            yield Finding(
                UNKNOWN_VALUE,
                f"cannot evaluate `{brief(launcher.source)}`; CL102 needs the "
                "launcher of this init_dist call",
                "launcher",
                None,
                at=origin_at(event.span),
                needed_by=CODE,
            )
            continue
        value = launcher.value if isinstance(launcher, ScalarNode) else None
        if policy.value_ok(value):
            continue
        yield Finding(
            CODE,
            f"`init_dist(launcher={brief_repr(value)})`: its torch.cuda.set_device fails on the "
            "target; use init_process_group",
            "launcher",
            None,
            at=origin_at(event.span),
        )


def _schema(policy: KeyPolicy) -> JsonSchema:
    return value_at_key(RULE_KEYS[CODE], policy)


_SCRIPT_INIT_DIST = (
    "import argparse\n"
    "from mmengine.config import Config\n"
    "from mmengine.dist import init_dist\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "args = parser.parse_args()\n"
    "cfg = Config.fromfile(args.config)\n"
    "init_dist(launcher='pytorch', backend='gloo')\n"
    "Runner.from_cfg(cfg).train()\n"
)
_SCRIPT_GROUP_FIRST = (
    "import argparse\n"
    "import torch.distributed as dist\n"
    "from mmengine.config import Config\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "parser.add_argument('--launcher', default='none')\n"
    "args = parser.parse_args()\n"
    "cfg = Config.fromfile(args.config)\n"
    "cfg.launcher = args.launcher\n"
    "if not dist.is_initialized():\n"
    "    dist.init_process_group(backend='gloo')\n"
    "Runner.from_cfg(cfg).train()\n"
)
_SCRIPT_LAUNCHER_ARG = _SCRIPT_GROUP_FIRST.replace(
    "if not dist.is_initialized():\n    dist.init_process_group(backend='gloo')\n", ""
)

RULE = Rule(
    code=CODE,
    name="launcher-init-dist",
    summary="launcher whose init_dist path needs CUDA",
    what=(
        "The launch goes through `mmengine.dist.init_dist` with the `pytorch`, `slurm` or `mpi` "
        "launcher on a target whose device MMEngine does not know (`cpu`, `t20-gcu` without "
        "its vendor import): the config sets `launcher` (or the entry script sets it, e.g. "
        "`cfg.launcher = args.launcher` with `--launcher pytorch` from the launcher) and "
        "nothing creates the process group before the Runner, or the entry script calls "
        "`init_dist(launcher='pytorch', ...)` itself. When the entry script creates the "
        "process group first (`torch.distributed.init_process_group`), the Runner skips "
        "`init_dist` and the config's `launcher` is fine."
    ),
    why=(
        "`Runner.setup_env` calls `mmengine.dist.init_dist` for these launchers unless a process "
        "group already exists. `init_dist` knows CUDA, NPU, MLU and MUSA; for every other device "
        "it calls `torch.cuda.set_device(local_rank)`. On a T20 host every rank stops with:\n\n"
        '```\nFile ".../mmengine/dist/utils.py", line 130, in _init_dist_pytorch\n'
        "    torch.cuda.set_device(local_rank)\n"
        f"{DRIVER_ERROR}.\n```"
    ),
    fix_doc=(
        "No automatic fix: the change belongs in the training entry point. Create the process "
        "group yourself before the Runner is built, so MMEngine skips `init_dist`:\n\n"
        "```python\nimport torch.distributed as dist\n"
        "if not dist.is_initialized():\n"
        "    dist.init_process_group(backend='gloo')  # reads RANK/WORLD_SIZE/MASTER_* from env\n"
        "runner = Runner.from_cfg(cfg)\n```\n\n"
        "With `cfglint check --entry` (or a launcher script, or `entry-points` in the settings) "
        "cfglint sees that and reports nothing; checking the config alone, mark the launcher "
        "line `# cfglint: noqa: CL102`. Do not set `launcher='none'` instead: the Runner would "
        "then not be distributed at all and would skip the DDP wrap."
    ),
    valid=(
        Example("t20-gcu", "launcher = 'none'\n"),
        Example("cuda", "launcher = 'pytorch'\n"),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n",
            _SCRIPT_GROUP_FIRST,
            ("--launcher", "pytorch"),
        ),
    ),
    invalid=(
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\nlauncher = 'pytorch'\n",
            message=(
                "`launcher='pytorch'`: init_dist's torch.cuda.set_device fails "
                "on the target; create the process group first"
            ),
            location="config.py:2:12",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "# train.py creates the process group before the Runner (see Fix "
                "below)\n"
                "launcher = 'pytorch'  # cfglint: noqa: CL102\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\nlauncher = 'slurm'\n",
            message=(
                "`launcher='slurm'`: init_dist's torch.cuda.set_device fails on "
                "the target; create the process group first"
            ),
            location="config.py:2:12",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "# train.py creates the process group before the Runner (see Fix "
                "below)\n"
                "launcher = 'slurm'  # cfglint: noqa: CL102\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n",
            _SCRIPT_INIT_DIST,
            message=(
                "`init_dist(launcher='pytorch')`: its torch.cuda.set_device "
                "fails on the target; use init_process_group"
            ),
            location="entry.py:9:1",
            instead=(
                "import argparse\n"
                "import torch.distributed as dist\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "args = parser.parse_args()\n"
                "cfg = Config.fromfile(args.config)\n"
                "dist.init_process_group(backend='gloo')\n"
                "cfg.launcher = 'pytorch'\n"
                "Runner.from_cfg(cfg).train()\n"
            ),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n",
            _SCRIPT_LAUNCHER_ARG,
            ("--launcher", "pytorch"),
            message=(
                "`launcher='pytorch'`: init_dist's torch.cuda.set_device fails "
                "on the target; create the process group first"
            ),
            location="entry.py:10:16",
            instead=(_SCRIPT_GROUP_FIRST),
        ),
    ),
    check=_check,
    schema=_schema,
    launch_check=_launch_check,
)
