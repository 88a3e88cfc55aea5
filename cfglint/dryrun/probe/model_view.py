"""What the report says about a model or a wrapper, read without importing anything new:
torch and mmengine are used only as the script already loaded them."""

from __future__ import annotations

import contextlib
import sys
from typing import Any


def devices(tensors: Any) -> list[str]:
    return sorted({str(tensor.device) for tensor in tensors})


def parameter_devices(model: Any) -> list[str]:
    with contextlib.suppress(Exception):
        return devices(model.parameters())
    return []


def buffer_devices(model: Any) -> list[str]:
    with contextlib.suppress(Exception):
        return devices(model.buffers())
    return []


def plain(value: Any) -> int | str:
    return value if isinstance(value, int) else str(value)


def plain_ids(device_ids: Any) -> list[int | str] | None:
    if device_ids is None:
        return None
    if isinstance(device_ids, list | tuple):
        return [plain(item) for item in device_ids]
    return [plain(device_ids)]  # DDP refuses it, but say what it got


def _ddp_class() -> type | None:
    module = sys.modules.get("torch.nn.parallel.distributed")
    found = getattr(module, "DistributedDataParallel", None)
    return found if isinstance(found, type) else None


def is_ddp(model: Any) -> bool:
    ddp = _ddp_class()
    return ddp is not None and isinstance(model, ddp)


def is_wrapper(model: Any) -> bool:
    """MMEngine's own test when the script has mmengine loaded, else DDP itself."""
    mmengine_model = sys.modules.get("mmengine.model")
    test = getattr(mmengine_model, "is_model_wrapper", None)
    if test is not None:
        with contextlib.suppress(Exception):
            return bool(test(model))
    return is_ddp(model)


def unwrapped(model: Any) -> Any:
    return model.module if is_wrapper(model) and hasattr(model, "module") else model


def wrapper_info(model: Any) -> dict[str, Any] | None:
    if model is None or not is_wrapper(model):
        return None
    output_device = getattr(model, "output_device", None)
    return {
        "type": type(model).__name__,
        "device_ids": plain_ids(getattr(model, "device_ids", None)),
        "output_device": None if output_device is None else plain(output_device),
        "is_ddp": is_ddp(model),
    }


def mmengine_device() -> str | None:
    """`mmengine.device.get_device()`, if the script has loaded mmengine.device."""
    module = sys.modules.get("mmengine.device")
    get_device = getattr(module, "get_device", None)
    if get_device is None:
        return None
    with contextlib.suppress(Exception):
        return str(get_device())
    return None


def process_group_backend() -> str | None:
    torch_dist = sys.modules.get("torch.distributed")
    if torch_dist is None:
        return None
    with contextlib.suppress(Exception):
        if torch_dist.is_available() and torch_dist.is_initialized():
            return str(torch_dist.get_backend())
    return None


def plain_data(value: Any) -> Any:
    """A config value as JSON data (a ConfigDict is a dict); anything else as its repr."""
    if isinstance(value, dict):
        return {str(key): plain_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_data(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)
