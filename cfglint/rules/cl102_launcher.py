"""CL102: a launcher whose init_dist path calls torch.cuda.set_device on a non-CUDA target."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import display_repr
from cfglint.rules.base import Example, Finding, JsonSchema, Rule, RuleContext
from cfglint.rules.schema import value_at_key
from cfglint.rules.values import check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy

CODE = "CL102"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return (
        f"`launcher={display_repr(value)}` makes MMEngine's init_dist call "
        "torch.cuda.set_device, which "
        f"fails on target {ctx.target.name}: create the process group in the entry point "
        f"before building the Runner (torch.distributed.init_process_group), so that MMEngine "
        f"skips init_dist"
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    yield from check_value(ctx, CODE, _describe, "")


def _schema(policy: KeyPolicy) -> JsonSchema:
    return value_at_key(RULE_KEYS[CODE], policy)


RULE = Rule(
    code=CODE,
    name="launcher-init-dist",
    summary="launcher whose init_dist path needs CUDA",
    what=(
        "The config sets `launcher` to `pytorch`, `slurm` or `mpi` for a target whose device "
        "MMEngine does not know (`cpu`, `t20-gcu`)."
    ),
    why=(
        "`Runner.setup_env` calls `mmengine.dist.init_dist` for these launchers unless a process "
        "group already exists. `init_dist` knows CUDA, NPU, MLU and MUSA; for every other device "
        "it calls `torch.cuda.set_device(local_rank)`. On a T20 host this is seed 003:\n\n"
        '```\nFile ".../mmengine/dist/utils.py", line 130, in _init_dist_pytorch\n'
        "    torch.cuda.set_device(local_rank)\n"
        "RuntimeError: Found no NVIDIA driver on your system.\n```"
    ),
    fix_doc=(
        "No automatic fix: the change belongs in the training entry point. Create the process "
        "group yourself before the Runner is built, so MMEngine skips `init_dist`:\n\n"
        "```python\nimport torch.distributed as dist\n"
        "if not dist.is_initialized():\n"
        "    dist.init_process_group(backend='gloo')  # reads RANK/WORLD_SIZE/MASTER_* from env\n"
        "runner = Runner.from_cfg(cfg)\n```\n\n"
        "Then mark the launcher line `# cfglint: noqa: CL102`. Do not set `launcher='none'` "
        "instead: the Runner would then not be distributed at all and would skip the DDP wrap."
    ),
    valid=(
        Example("t20-gcu", "launcher = 'none'\n"),
        Example("cuda", "launcher = 'pytorch'\n"),
    ),
    invalid=(
        Example("t20-gcu", "launcher = 'pytorch'\n"),
        Example("cpu", "launcher = 'slurm'\n"),
    ),
    check=_check,
    schema=_schema,
)
