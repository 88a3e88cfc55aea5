"""What MMEngine's Runner.wrap_model will build from `model_wrapper_cfg`."""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.rules.keys import Absent, Present, Unknown, key_state
from cfglint.types import DictNode, ResolvedConfig, ScalarNode, UnknownNode

WRAPPER_KEY = "model_wrapper_cfg"
DEFAULT_WRAPPER = "MMDistributedDataParallel"
# Wrappers registered in MMEngine's MODEL_WRAPPERS that subclass DistributedDataParallel:
# Runner.wrap_model passes them default_args={'device_ids': [LOCAL_RANK]}.
DDP_WRAPPERS = frozenset(
    {"MMDistributedDataParallel", "MMSeparateDistributedDataParallel", "DistributedDataParallel"}
)


@dataclass(frozen=True, slots=True)
class DefaultWrapper:
    """No model_wrapper_cfg (or None): MMDistributedDataParallel(device_ids=[LOCAL_RANK])."""

    node: ScalarNode | None


@dataclass(frozen=True, slots=True)
class ConfiguredWrapper:
    node: DictNode
    type_name: str
    is_ddp: bool


@dataclass(frozen=True, slots=True)
class UnknownWrapper:
    node: UnknownNode


WrapperState = DefaultWrapper | ConfiguredWrapper | UnknownWrapper | None


def wrapper_state(config: ResolvedConfig) -> WrapperState:
    """None when model_wrapper_cfg holds something MMEngine would not accept as a config."""
    state = key_state(config.root, WRAPPER_KEY)
    if isinstance(state, Unknown):
        return UnknownWrapper(state.node)
    if isinstance(state, Absent):
        return DefaultWrapper(None)
    assert isinstance(state, Present)
    node = state.node
    if isinstance(node, ScalarNode) and node.value is None:
        return DefaultWrapper(node)
    if not isinstance(node, DictNode):
        return None
    type_node = node.entries.get("type")
    if type_node is None:
        return ConfiguredWrapper(node, DEFAULT_WRAPPER, True)
    if isinstance(type_node, UnknownNode):
        return UnknownWrapper(type_node)
    if isinstance(type_node, ScalarNode) and isinstance(type_node.value, str):
        # Registry names may carry a scope prefix: 'mmengine.MMDistributedDataParallel'.
        name = type_node.value.rsplit(".", 1)[-1]
        return ConfiguredWrapper(node, type_node.value, name in DDP_WRAPPERS)
    return None
