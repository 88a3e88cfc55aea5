"""CL103: a process-group backend that init_dist never passes on, on this target."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, Rule, RuleContext
from cfglint.rules.values import allowed_text, check_value

CODE = "CL103"


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    used = ctx.target.host.init_dist_backend
    uses = repr(used) if used is not None else allowed_text(ctx)
    return f"`{ctx.key}={brief_repr(value)}` is ignored: the target's init_dist always uses {uses}"


def _check(ctx: RuleContext) -> Iterator[Finding]:
    # Only a value written out: an absent key is not a value the user thinks is used.
    yield from check_value(ctx, CODE, _describe, "")


RULE = Rule(
    code=CODE,
    name="dist-backend-ignored",
    summary="process-group backend the target's init_dist ignores",
    what=(
        "`env_cfg.dist_cfg.backend` is written out on a target whose `init_dist` hard-codes "
        "its own collective backend (`hccl` on `ascend-npu`, `cncl` on `cambricon-mlu`, "
        "`mccl` on `moore-threads-musa`; the target file's `host.init-dist.backend`), and it "
        "is not that backend. Reported as **information**: nothing fails, but the value the "
        "config shows is not the one used. The exit code does not change."
    ),
    why=(
        "MMEngine 0.10's `mmengine/dist/utils.py::_init_dist_pytorch` receives the backend and "
        "never passes it on where a vendor device is found:\n\n"
        "```python\n"
        "if is_mlu_available():\n"
        "    import torch_mlu  # noqa: F401\n"
        "    torch.mlu.set_device(local_rank)\n"
        "    torch_dist.init_process_group(\n"
        "        backend='cncl',\n"
        "        ...\n"
        "elif is_npu_available():\n"
        "    import torch_npu  # noqa: F401\n"
        "    torch.npu.set_device(local_rank)\n"
        "    torch_dist.init_process_group(\n"
        "        backend='hccl',\n"
        "        ...\n"
        "elif is_musa_available():\n"
        "    import torch_musa  # noqa: F401\n"
        "    torch.musa.set_device(rank)\n"
        "    torch_dist.init_process_group(\n"
        "        backend='mccl',\n"
        "```\n\n"
        "A config that keeps `backend='nccl'` from its CUDA days trains fine on these hosts; "
        "the note is there so that nobody debugs a collective problem by changing a value "
        "MMEngine does not read."
    ),
    fix_doc="None: the value does nothing on the target, and it may be right on another one.",
    valid=(
        Example("ascend-npu", "env_cfg = dict(dist_cfg=dict(backend='hccl'))\n"),
        Example("cambricon-mlu", "env_cfg = dict(cudnn_benchmark=False)\n"),
        Example("cuda", "env_cfg = dict(dist_cfg=dict(backend='nccl'))\n"),
    ),
    invalid=(
        Example(
            "ascend-npu",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n",
            message=(
                "`env_cfg.dist_cfg.backend='nccl'` is ignored: the target's "
                "init_dist always uses 'hccl'"
            ),
            location="config.py:2:38",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='hccl'))\n"
            ),
        ),
        Example(
            "cambricon-mlu",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
            message=(
                "`env_cfg.dist_cfg.backend='gloo'` is ignored: the target's "
                "init_dist always uses 'cncl'"
            ),
            location="config.py:2:38",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='cncl'))\n"
            ),
        ),
        Example(
            "moore-threads-musa",
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n",
            message=(
                "`env_cfg.dist_cfg.backend='nccl'` is ignored: the target's "
                "init_dist always uses 'mccl'"
            ),
            location="config.py:2:38",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "env_cfg = dict(dist_cfg=dict(backend='mccl'))\n"
            ),
        ),
    ),
    check=_check,
)
