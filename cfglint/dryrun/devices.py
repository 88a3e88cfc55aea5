"""Reading device sets: what a set of `str(tensor.device)` values means for the DDP wrap."""

from __future__ import annotations

from collections.abc import Iterable


def device_type(device: str) -> str:
    """`'cuda:1'` -> `'cuda'`; `'cpu'` -> `'cpu'`."""
    return device.split(":", 1)[0]


def device_types(devices: Iterable[str]) -> frozenset[str]:
    return frozenset(device_type(device) for device in devices)


def spans_several_devices(devices: Iterable[str]) -> bool:
    """A model on more than one device: DDP accepts it only with `device_ids=None`."""
    return len(set(devices)) > 1


def all_on(devices: Iterable[str], wanted_type: str) -> bool:
    found = device_types(devices)
    return bool(found) and found == {wanted_type}


def describe(devices: Iterable[str]) -> str:
    ordered = sorted(set(devices))
    return "{" + ", ".join(ordered) + "}" if ordered else "(none)"
