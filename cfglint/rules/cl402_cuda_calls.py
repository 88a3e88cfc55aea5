"""CL402: the entry script calls CUDA on a target without it."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief
from cfglint.rules.base import Example, Finding, LaunchContext, Rule
from cfglint.rules.launch_facts import events, origin_at

CODE = "CL402"


def _launch_check(ctx: LaunchContext) -> Iterator[Finding]:
    # The interpreter records a CUDA call only where the path's host has no CUDA (the vendor
    # import, when the path has it, redirects CUDA calls to the accelerator).
    for event in events(ctx.world, "cuda_call"):
        yield Finding(
            CODE,
            f"`{brief(event.name)}` needs CUDA, which the target does not have",
            event.name,
            None,
            at=origin_at(event.span),
        )


_HEAD = (
    "import argparse\n"
    "import os\n"
    "import torch\n"
    "from mmengine.config import Config\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "cfg = Config.fromfile(parser.parse_args().config)\n"
)
_RUN = "Runner.from_cfg(cfg).train()\n"
_CONFIG = "model = dict(type='ToyClassifier')\n"

RULE = Rule(
    code=CODE,
    name="cuda-call-in-entry",
    summary="CUDA call in the entry script on a target without CUDA",
    what=(
        "The entry script, on its way to the Runner (or right after it, before training "
        "starts), calls CUDA where the target's host has none: `torch.cuda.set_device(...)` "
        "or any other `torch.cuda` function that touches a device, `.cuda()`, "
        "`.to('cuda...')`, `torch.device('cuda...')`. Queries that answer without a device "
        "(`torch.cuda.is_available()`, `torch.cuda.device_count()`) are not reported: "
        "cfglint follows them (they are false and 0 on such a host). Checked through a launch "
        "only. `torch.backends.cudnn.benchmark = True` is CL301; a DDP wrapper built with "
        "`device_ids` is CL201."
    ),
    why=(
        "A host without an NVIDIA driver (a T20 GCU server, a CPU host) fails on the first CUDA "
        "call: `RuntimeError: Found no NVIDIA driver on your system` (PyTorch built with CUDA) "
        "or `AssertionError: Torch not compiled with CUDA enabled` (a CPU build). On a T20 host "
        "importing `torch_gcu.transfer_to_gcu` first sends these calls to the GCU instead "
        "(see CL401), and cfglint then reports nothing."
    ),
    fix_doc=(
        "No automatic fix: use the device MMEngine resolves (`mmengine.device.get_device()`), "
        "or, on a T20 host, import `torch_gcu.transfer_to_gcu` before mmengine (CL401's fix)."
    ),
    valid=(
        Example(
            "cuda", _CONFIG, _HEAD + "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n" + _RUN
        ),
        Example(
            "cpu",
            _CONFIG,
            _HEAD + "if torch.cuda.is_available():\n    torch.cuda.set_device(0)\n" + _RUN,
        ),
    ),
    invalid=(
        Example(
            "t20-gcu",
            _CONFIG,
            _HEAD + "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n" + _RUN,
            message=("`torch.cuda.set_device` needs CUDA, which the target does not have"),
            location="entry.py:9:1",
            instead=(_HEAD + _RUN),
        ),
        Example(
            "cpu",
            _CONFIG,
            _HEAD + "device = torch.device('cuda:0')\n" + _RUN,
            message=("`torch.device('cuda')` needs CUDA, which the target does not have"),
            location="entry.py:9:10",
            instead=(_HEAD + "device = torch.device('cpu')\n" + _RUN),
        ),
    ),
    check=None,
    launch_check=_launch_check,
)
