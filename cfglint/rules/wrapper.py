"""What MMEngine's Runner.wrap_model will build from `model_wrapper_cfg`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cfglint.rules.keys import Absent, Present, Unknown, key_state
from cfglint.types import DictNode, ResolvedConfig, ScalarNode, UnknownNode

WRAPPER_KEY = "model_wrapper_cfg"
RUNNER_TYPE_KEY = "runner_type"
DEFAULT_WRAPPER = "MMDistributedDataParallel"
FLEXIBLE_RUNNER = "FlexibleRunner"
# Wrappers registered in MMEngine's MODEL_WRAPPERS that subclass DistributedDataParallel:
# Runner.wrap_model passes them default_args={'device_ids': [LOCAL_RANK]}.
DDP_WRAPPERS = frozenset(
    {"MMDistributedDataParallel", "MMSeparateDistributedDataParallel", "DistributedDataParallel"}
)
# The other wrappers MMEngine 0.10 registers: no DDP subclass, so no device_ids are injected.
OTHER_WRAPPERS = frozenset(
    {
        "DataParallel",
        "MMFullyShardedDataParallel",
        "MMDeepSpeedEngineWrapper",
        "ColossalAIModelWrapper",
        "CollosalAIModelWrapper",
    }
)

WrapperKind = Literal["ddp", "other", "custom"]


@dataclass(frozen=True, slots=True)
class DefaultWrapper:
    """No model_wrapper_cfg (or None): MMDistributedDataParallel(device_ids=[LOCAL_RANK])."""

    node: ScalarNode | None


@dataclass(frozen=True, slots=True)
class ConfiguredWrapper:
    node: DictNode
    type_name: str
    # ddp: a DDP subclass MMEngine registers; other: a registered wrapper that is not one;
    # custom: a name MMEngine does not register itself (issubclass is decided at run time).
    kind: WrapperKind

    @property
    def is_ddp(self) -> bool:
        return self.kind == "ddp"


@dataclass(frozen=True, slots=True)
class UnknownWrapper:
    node: UnknownNode


@dataclass(frozen=True, slots=True)
class NotUsed:
    """`runner_type='FlexibleRunner'`: its strategy wraps the model; model_wrapper_cfg is unused."""


WrapperState = DefaultWrapper | ConfiguredWrapper | UnknownWrapper | NotUsed | None


def registry_name(value: str) -> str:
    # Registry names may carry a scope prefix: 'mmengine.MMDistributedDataParallel'.
    return value.rsplit(".", 1)[-1]


def wrapper_kind(type_name: str) -> WrapperKind:
    name = registry_name(type_name)
    if name in DDP_WRAPPERS:
        return "ddp"
    return "other" if name in OTHER_WRAPPERS else "custom"


def _runner(config: ResolvedConfig) -> NotUsed | UnknownWrapper | None:
    node = config.root.entries.get(RUNNER_TYPE_KEY)
    if isinstance(node, UnknownNode):
        return UnknownWrapper(node)
    if (
        isinstance(node, ScalarNode)
        and isinstance(node.value, str)
        and registry_name(node.value) == FLEXIBLE_RUNNER
    ):
        return NotUsed()
    return None


def wrapper_state(config: ResolvedConfig) -> WrapperState:
    """None when model_wrapper_cfg holds something MMEngine would not accept as a config."""
    runner = _runner(config)
    if runner is not None:
        return runner
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
        return ConfiguredWrapper(node, DEFAULT_WRAPPER, "ddp")
    if isinstance(type_node, UnknownNode):
        return UnknownWrapper(type_node)
    if isinstance(type_node, ScalarNode) and isinstance(type_node.value, str):
        return ConfiguredWrapper(node, type_node.value, wrapper_kind(type_node.value))
    return None


def ddp_ignores(device_ids: object) -> bool:
    """PyTorch's DDP treats an empty device_ids list like None ("for backward compatibility")."""
    return isinstance(device_ids, list | tuple) and not device_ids
