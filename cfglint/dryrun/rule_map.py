"""Which static rule catches the failure a rank hit, so the fix is one `cfglint fix` away."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cfglint.dryrun.result import RankError

_DDP_DEVICE_ARGS = re.compile(
    r"DistributedDataParallel device_ids and output_device arguments only work with"
    r".*but got device_ids (?P<ids>.+?), output_device (?P<out>.+?), "
    r"and module parameters (?P<params>.+?)\.?$",
    re.DOTALL,
)
_NO_CUDA = ("NVIDIA driver", "not compiled with CUDA", "_cuda_setDevice", "no CUDA GPUs")


@dataclass(frozen=True, slots=True)
class RuleHit:
    code: str
    why: str


def _cuda_set_device_in(error: RankError) -> bool:
    return any(
        frame.function == "set_device" and "cuda" in frame.file.replace("\\", "/")
        for frame in error.frames
    )


def _init_dist_in(error: RankError) -> bool:
    return any(frame.function in {"init_dist", "_init_dist_pytorch"} for frame in error.frames)


def rules_for(error: RankError) -> tuple[RuleHit, ...]:
    """The rules that report this failure statically, most direct first; () when none does."""
    ddp = _DDP_DEVICE_ARGS.search(error.message)
    if ddp is not None:
        hits = [
            RuleHit(
                "CL201",
                f"DDP got device_ids {ddp['ids']} for a model on "
                f"{ddp['params']}; only device_ids=None works there",
            )
        ]
        if ddp["out"].strip() != "None":
            hits.append(RuleHit("CL202", f"output_device {ddp['out']} is set"))
        return tuple(hits)
    if (
        error.phase == "setup_env"
        and _init_dist_in(error)
        and (_cuda_set_device_in(error) or any(text in error.message for text in _NO_CUDA))
    ):
        return (
            RuleHit(
                "CL102",
                "mmengine.dist.init_dist called torch.cuda.set_device "
                "on a host MMEngine does not know as an accelerator",
            ),
        )
    return ()
