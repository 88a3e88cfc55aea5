"""The names MMEngine, PyTorch and the OpenMMLab packages give what an entry script calls and
imports, listed once: the interpreter dispatches on them, and the rules ask whether an import is
an OpenMMLab one. A leaf (no imports), so that a check that meets no entry script does not
import the interpreter's object models to ask.
"""

from __future__ import annotations

# Every spelling a script reaches these by (`from mmengine import Config`, `mmengine.config.
# Config`, the defining module). Matched on the qualified name of what the script calls.
CONFIG_CLASSES = frozenset(
    {"mmengine.Config", "mmengine.config.Config", "mmengine.config.config.Config"}
)
CONFIG_DICT_CLASSES = frozenset(
    {"mmengine.ConfigDict", "mmengine.config.ConfigDict", "mmengine.config.config.ConfigDict"}
)
DICT_ACTIONS = frozenset(
    {"mmengine.DictAction", "mmengine.config.DictAction", "mmengine.config.config.DictAction"}
)
RUNNER_CLASSES = frozenset(
    {
        "mmengine.Runner",
        "mmengine.runner.Runner",
        "mmengine.runner.runner.Runner",
        "mmengine.FlexibleRunner",
        "mmengine.runner.FlexibleRunner",
        "mmengine.runner._flexible_runner.FlexibleRunner",
    }
)
INIT_DIST = frozenset({"mmengine.dist.init_dist", "mmengine.dist.utils.init_dist"})
INIT_PROCESS_GROUP = frozenset(
    {
        "torch.distributed.init_process_group",
        "torch.distributed.distributed_c10d.init_process_group",
    }
)
IS_INITIALIZED = frozenset(
    {"torch.distributed.is_initialized", "torch.distributed.distributed_c10d.is_initialized"}
)
DDP_CLASSES = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.DistributedDataParallel",
        "mmengine.model.MMDistributedDataParallel",
        "mmengine.model.wrappers.MMDistributedDataParallel",
        "mmengine.model.wrappers.distributed.MMDistributedDataParallel",
    }
)
# torch.cuda functions that answer without touching a device: on a host without CUDA they
# return False / 0 instead of raising.
CUDA_QUERIES = frozenset({"torch.cuda.is_available", "torch.cuda.device_count"})
GET_DEVICE = frozenset({"mmengine.device.get_device", "mmengine.device.utils.get_device"})
EXITS = frozenset({"sys.exit", "os._exit"})
# The OpenMMLab packages: importing any of them imports mmengine, which decides its device then.
MMENGINE_PACKAGES = frozenset(
    {
        "mmengine",
        "mmcv",
        "mmdet",
        "mmseg",
        "mmpretrain",
        "mmcls",
        "mmpose",
        "mmocr",
        "mmaction",
        "mmagic",
        "mmedit",
        "mmrotate",
        "mmyolo",
        "mmtrack",
        "mmdet3d",
        "mmflow",
        "mmfewshot",
        "mmselfsup",
        "mmrazor",
        "mmdeploy",
        "mmgen",
        "mmhuman3d",
        "mmpl",
    }
)


def is_runners_build(name: str) -> bool:
    """`mmdet.registry.RUNNERS.build`, `mmengine.registry.RUNNERS.build`, ..."""
    return name.endswith(".RUNNERS.build")


def is_runner_from_cfg(name: str) -> bool:
    owner, _, method = name.rpartition(".")
    return method == "from_cfg" and owner in RUNNER_CLASSES
