"""`Config.merge_from_dict(options)` as MMEngine 0.10.7 does it, on the interpreter's values.

The dotted keys are first nested (`model.backbone.depth` -> model -> backbone -> depth), then
merged with `Config._merge_a_into_b(..., allow_list_keys=True)`: a digit key indexes a list, a
nested dict merges into a dict (or a list) unless it says `_delete_`, anything else replaces.
Every container on a merged path is a copy afterwards, as in MMEngine; the Config keeps its
identity (the script's `cfg` still names it).
"""

from __future__ import annotations

from cfglint.loader.merge import DELETE_KEY
from cfglint.loader.values import (
    DefiniteError,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_data,
    thaw,
    to_py,
)
from cfglint.types import DictNode, Origin, ScalarNode, SequenceNode, UnknownNode

# A nested option: a plain dict while the options are gathered (a ConfigDict in MMEngine).
Nested = dict[str, "Val | Nested"]


def merge_from_dict(config: VDict, options: VDict) -> None:
    """Merge `options` (dotted keys to values) into `config` in place."""
    if options.poison is not None:
        raise UnknowableError(options.poison.reason, options.poison)
    nested: Nested = {}
    for full_key, value in options.entries.items():
        if not isinstance(full_key, str):
            raise DefiniteError(
                f"AttributeError: {type(full_key).__name__!r} object has no attribute 'split'"
            )
        holder = nested
        *parents, last = full_key.split(".")
        for part in parents:
            inner = holder.setdefault(part, {})
            if not isinstance(inner, dict):
                # `a=1 a.b=2`: MMEngine's setdefault finds the value 1 and indexes into it.
                raise DefiniteError(
                    f"TypeError: 'int' object does not support item assignment: {full_key}"
                )
            holder = inner
        holder[last] = value
    merged = _merge(nested, config, options.origin)
    assert isinstance(merged, VDict)
    config.entries = merged.entries


def _copy(target: Val) -> VDict | VList:
    if isinstance(target, DictNode | SequenceNode):
        target = thaw(target)
    if isinstance(target, UnknownNode):
        raise UnknowableError(target.reason, target)
    if isinstance(target, VDict | VList):
        if target.poison is not None:
            raise UnknowableError(target.poison.reason, target.poison)
        if isinstance(target, VDict):
            return VDict(dict(target.entries), target.origin, target.config_dict)
        return VList(list(target.items), target.is_tuple, target.origin)
    raise DefiniteError(
        f"AttributeError: {type(to_py(target)).__name__!r} object has no attribute 'copy'"
    )


def _merge(options: Nested, target: Val, origin: Origin) -> VDict | VList:
    merged = _copy(target)
    for key, value in options.items():
        if key.isdigit() and isinstance(merged, VList):
            index = int(key)
            if len(merged.items) <= index:
                raise DefiniteError(f"KeyError: 'Index {index} exceeds the length of list'")
            if not isinstance(value, dict):
                kind = type(to_py(value)).__name__ if not isinstance(value, VDict) else "dict"
                raise DefiniteError(f"AttributeError: {kind!r} object has no attribute 'items'")
            merged.items[index] = _merge(value, merged.child(index), origin)
        elif isinstance(value, dict):
            delete = value.pop(DELETE_KEY, None)
            replace = delete is not None and _truthy(delete)
            if _contains(merged, key) and not replace:
                assert isinstance(merged, VDict)
                below = merged.child(key)
                if isinstance(below, UnknownNode):
                    raise UnknowableError(below.reason, below)
                if not isinstance(below, VDict | VList):
                    raise DefiniteError(
                        f"TypeError: {key}={to_py_text(value)} in child config cannot inherit "
                        f"from base because {key} is a dict in the child config but is of type "
                        f"{type(to_py(below)).__name__} in base config"
                    )
                merged.entries[key] = _merge(value, below, origin)
            else:
                _store(merged, key, _as_config_dict(value, origin))
        else:
            _store(merged, key, copy_data(value, "config_dict"))
    return merged


def _contains(target: VDict | VList, key: str) -> bool:
    if isinstance(target, VDict):
        return key in target.entries
    return any(isinstance(item, ScalarNode) and item.value == key for item in target.items)


def _store(target: VDict | VList, key: str, value: Val) -> None:
    if isinstance(target, VList):
        raise DefiniteError("TypeError: list indices must be integers or slices, not str")
    target.entries[key] = value


def _as_config_dict(value: Nested, origin: Origin) -> VDict:
    entries: dict[object, Val] = {
        key: _as_config_dict(item, origin) if isinstance(item, dict) else item
        for key, item in value.items()
    }
    converted = copy_data(VDict(entries, origin), "config_dict")
    assert isinstance(converted, VDict)
    return converted


def _truthy(value: Val | Nested) -> bool:
    if isinstance(value, dict):
        return bool(value)
    return bool(to_py(value))


def to_py_text(value: Nested) -> str:
    try:
        return repr(
            {key: item if isinstance(item, dict) else to_py(item) for key, item in value.items()}
        )
    except UnknowableError:
        return "{...}"
