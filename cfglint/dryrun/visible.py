"""Whether this host has a device for every rank, asked before any rank starts.

Each rank sets its device from LOCAL_RANK. Where the ranks see CUDA, `--world-size` larger than
the CUDA devices visible here makes rank N name a device that does not exist: it dies in
`torch.cuda.set_device` (an IndexError inside torch) while the others wait on it until the
straggler grace kills them. The count is torch's own, `torch.cuda.device_count()`, asked in a
fresh interpreter with the ranks' environment (`CUDA_VISIBLE_DEVICES` included): the parent
never imports torch.
"""

from __future__ import annotations

import subprocess
import sys

from cfglint.dryrun.assess import TargetView

# Run with the ranks' interpreter and environment. A torch built without CUDA or ROCm (its
# `torch/version.py` says `cuda` and `hip` are None) has no CUDA device: told without importing
# torch, which takes 2-3 s of CPU (a CPU host's dry run paid it on every start). Otherwise torch's
# own count.
_COUNT = """
import importlib.util, os, re
spec = importlib.util.find_spec("torch")
folders = list(spec.submodule_search_locations or []) if spec is not None else []
try:
    with open(os.path.join(folders[0], "version.py"), encoding="utf-8") as handle:
        text = handle.read()
except (IndexError, OSError):
    text = ""
if all(re.search(rf"^{name}\\b[^=\\n]*=\\s*None\\s*$", text, re.M) for name in ("cuda", "hip")):
    print(0)
else:
    import torch
    print(torch.cuda.device_count())
"""
_COUNT_TIMEOUT_S = 120.0


def cuda_device_count() -> int | None:
    """`torch.cuda.device_count()` as a rank would see it; None when torch cannot say."""
    try:
        completed = subprocess.run(
            [sys.executable, "-c", _COUNT],
            capture_output=True,
            text=True,
            timeout=_COUNT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = completed.stdout.split()
    if completed.returncode != 0 or not words or not words[-1].isdigit():
        return None
    return int(words[-1])


def too_few_devices(world_size: int, target: TargetView) -> str | None:
    """Why `world_size` ranks cannot each get a CUDA device here (None: they can, or the ranks
    see no CUDA at all and resolve the CPU, as the target's host does)."""
    if world_size < 2 or target.ranks_hide_cuda:
        return None
    visible = cuda_device_count()
    if visible is None or visible == 0 or visible >= world_size:
        return None
    devices = "device is" if visible == 1 else "devices are"
    return (
        f"--world-size {world_size} needs a CUDA device per rank, but {visible} {devices} "
        f"visible here (torch.cuda.device_count()): rank {visible} would set a device that "
        f"does not exist; use --world-size {visible}, or a host with {world_size} devices"
    )
