"""What MMEngine will wrap the model in: `Runner.wrap_model` from `model_wrapper_cfg`, or a
FlexibleRunner's `DDPStrategy` from `strategy.model_wrapper` (mmengine/_strategy/distributed.py:
the same `MMDistributedDataParallel` default and `device_ids=[LOCAL_RANK]` as default args)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cfglint.rules.keys import Absent, Present, Unknown, key_state
from cfglint.rules.type_names import registry_name, type_name, written_type
from cfglint.types import DictNode, ResolvedConfig, ScalarNode, UnknownNode

WRAPPER_KEY = "model_wrapper_cfg"
RUNNER_TYPE_KEY = "runner_type"
DEFAULT_WRAPPER = "MMDistributedDataParallel"
FLEXIBLE_RUNNER = "FlexibleRunner"
STRATEGY_KEY = "strategy"
DDP_STRATEGY = "DDPStrategy"
# Where a DDPStrategy reads its wrapper config.
STRATEGY_WRAPPER_KEY = f"{STRATEGY_KEY}.model_wrapper"
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
    """No model_wrapper_cfg (or None): MMDistributedDataParallel(device_ids=[LOCAL_RANK]).
    The same for a DDPStrategy without `model_wrapper`, and for a FlexibleRunner without a
    `strategy` (a distributed launch builds a DDPStrategy)."""

    node: ScalarNode | None
    key: str = WRAPPER_KEY  # the dotted key of the wrapper config
    no_strategy: bool = False  # a FlexibleRunner config without `strategy`
    # The deepest dict on the key's path when the key is absent (None: the config itself).
    anchor: DictNode | None = None

    @property
    def in_strategy(self) -> bool:
        return self.key == STRATEGY_WRAPPER_KEY


@dataclass(frozen=True, slots=True)
class ConfiguredWrapper:
    node: DictNode
    type_name: str
    # ddp: a DDP subclass MMEngine registers; other: a registered wrapper that is not one;
    # custom: a name MMEngine does not register itself (issubclass is decided at run time).
    kind: WrapperKind
    key: str = WRAPPER_KEY

    @property
    def is_ddp(self) -> bool:
        return self.kind == "ddp"


@dataclass(frozen=True, slots=True)
class UnknownWrapper:
    node: UnknownNode


@dataclass(frozen=True, slots=True)
class NotUsed:
    """`runner_type='FlexibleRunner'` with a strategy other than DDPStrategy (FSDP, DeepSpeed,
    ColossalAI, one device): no DDP wrapper is built."""


WrapperState = DefaultWrapper | ConfiguredWrapper | UnknownWrapper | NotUsed | None


def wrapper_kind(written: str) -> WrapperKind:
    name = registry_name(written)
    if name in DDP_WRAPPERS:
        return "ddp"
    return "other" if name in OTHER_WRAPPERS else "custom"


def _is_flexible(config: ResolvedConfig) -> bool | UnknownWrapper:
    node = config.root.entries.get(RUNNER_TYPE_KEY)
    if isinstance(node, UnknownNode):
        return UnknownWrapper(node)
    return type_name(node) == FLEXIBLE_RUNNER


def wrapper_state(config: ResolvedConfig) -> WrapperState:
    """None when the wrapper config holds something MMEngine would not accept as a config."""
    flexible = _is_flexible(config)
    if isinstance(flexible, UnknownWrapper):
        return flexible
    if flexible:
        return _strategy_wrapper(config)
    return _wrapper_at(config, WRAPPER_KEY)


def _strategy_wrapper(config: ResolvedConfig) -> WrapperState:
    """FlexibleRunner.build_strategy: no `strategy` under a distributed launch is a
    DDPStrategy; only a DDPStrategy builds a DDP wrapper (FSDPStrategy subclasses it but wraps
    in FSDP, with its own device_id)."""
    state = key_state(config.root, STRATEGY_KEY)
    if isinstance(state, Unknown):
        return UnknownWrapper(state.node)
    if isinstance(state, Absent):
        return DefaultWrapper(None, STRATEGY_WRAPPER_KEY, no_strategy=True)
    assert isinstance(state, Present)
    if not isinstance(state.node, DictNode):
        return None
    type_node = state.node.entries.get("type")
    if isinstance(type_node, UnknownNode):
        return UnknownWrapper(type_node)
    name = type_name(type_node)
    if name is None:
        return None  # MMEngine fails on a strategy without a type name
    if name != DDP_STRATEGY:
        return NotUsed()
    return _wrapper_at(config, STRATEGY_WRAPPER_KEY)


def _wrapper_at(config: ResolvedConfig, key: str) -> WrapperState:
    state = key_state(config.root, key)
    if isinstance(state, Unknown):
        return UnknownWrapper(state.node)
    if isinstance(state, Absent):
        return DefaultWrapper(None, key, anchor=state.anchor)
    assert isinstance(state, Present)
    node = state.node
    if isinstance(node, ScalarNode) and node.value is None:
        return DefaultWrapper(node, key)
    if not isinstance(node, DictNode):
        return None
    type_node = node.entries.get("type")
    if type_node is None:
        return ConfiguredWrapper(node, DEFAULT_WRAPPER, "ddp", key)
    if isinstance(type_node, UnknownNode):
        return UnknownWrapper(type_node)
    written = written_type(type_node.value) if isinstance(type_node, ScalarNode) else None
    if written is not None:
        return ConfiguredWrapper(node, written, wrapper_kind(written), key)
    return None


def ddp_ignores(device_ids: object) -> bool:
    """PyTorch's DDP treats an empty device_ids list like None ("for backward compatibility")."""
    return isinstance(device_ids, list | tuple) and not device_ids
