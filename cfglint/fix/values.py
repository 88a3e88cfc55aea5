"""Value equality the way a config means it: ``1``, ``1.0`` and ``True`` are different values."""

from __future__ import annotations


def same_value(left: object, right: object) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, list | tuple):
        assert isinstance(right, list | tuple)
        return len(left) == len(right) and all(map(same_value, left, right))
    if isinstance(left, dict):
        assert isinstance(right, dict)
        return left.keys() == right.keys() and all(
            same_value(item, right[key]) for key, item in left.items()
        )
    return left == right
