"""CL303: a top-level `find_unused_parameters` the Runner never reads."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.rules.base import Example, Finding, Rule, RuleContext
from cfglint.rules.keys import Absent, Present, key_state
from cfglint.rules.type_names import type_name
from cfglint.rules.wrapper import DDP_WRAPPERS, FLEXIBLE_RUNNER, RUNNER_TYPE_KEY, WRAPPER_KEY
from cfglint.types import (
    REMOVE,
    Applicability,
    ConfigNode,
    DictNode,
    FixIntent,
    KeyChange,
    ScalarNode,
    UnknownValueError,
    to_python,
)

CODE = "CL303"
KEY = "find_unused_parameters"


def _move(wrapper: DictNode, value: object) -> FixIntent | None:
    """Into model_wrapper_cfg, where a DDP wrapper takes it as a keyword, if not set there."""
    kind = wrapper.get("type")
    if kind is not None and type_name(kind) not in DDP_WRAPPERS:
        return None  # another wrapper may not take the keyword
    return FixIntent(
        f"Move it into `{WRAPPER_KEY}`",
        (KeyChange((WRAPPER_KEY, KEY), value), KeyChange((KEY,), REMOVE)),
        Applicability.SAFE,
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    root = ctx.config.root
    state = key_state(root, KEY)
    if not isinstance(state, Present):
        return
    if type_name(root.get(RUNNER_TYPE_KEY)) == FLEXIBLE_RUNNER:
        yield Finding(
            CODE,
            f"top-level `{KEY}` is ignored by FlexibleRunner: set it in `strategy.model_wrapper`",
            KEY,
            state.node,
        )
        return
    wrapper = key_state(root, WRAPPER_KEY)
    if isinstance(wrapper, Absent) or not isinstance(wrapper, Present):
        return
    if not isinstance(wrapper.node, DictNode):
        return  # None (the default wrapper reads the top-level key) or not a dict
    try:
        value = to_python(state.node)
    except UnknownValueError:
        value = None
    inside = wrapper.node.get(KEY)
    if isinstance(inside, ScalarNode):
        yield _beside(state.node, value, inside.value)
        return
    yield Finding(
        CODE,
        f"top-level `{KEY}` is ignored because `{WRAPPER_KEY}` is set: set it there",
        KEY,
        state.node,
        _move(wrapper.node, value) if value is not None else None,
    )


def _beside(node: ConfigNode, value: object, used: object) -> Finding:
    """`model_wrapper_cfg` sets the key too: its value is the one DDP gets."""
    if value is not None and value == used and type(value) is type(used):
        return Finding(
            CODE,
            f"top-level `{KEY}` is ignored; `{WRAPPER_KEY}.{KEY}` sets the same value",
            KEY,
            node,
            FixIntent("Remove the top-level key", (KeyChange((KEY,), REMOVE),), Applicability.SAFE),
        )
    return Finding(
        CODE,
        f"top-level `{KEY}` is ignored: DDP gets `{WRAPPER_KEY}.{KEY}={used!r}`",
        KEY,
        node,
    )


RULE = Rule(
    code=CODE,
    name="find-unused-parameters-ignored",
    summary="top-level find_unused_parameters the Runner does not read",
    what=(
        "A top-level `find_unused_parameters` in a config that also sets `model_wrapper_cfg`, "
        "or that runs under `runner_type='FlexibleRunner'`. Checked on every target. A "
        "**warning**: the job starts, but DDP does not look for unused parameters, and stops "
        "at the first iteration that leaves one without a gradient."
    ),
    why=(
        "MMEngine 0.10's `Runner.wrap_model` reads the top-level key only when it builds the "
        "default wrapper:\n\n"
        "```python\n"
        "if model_wrapper_cfg is None:\n"
        "    find_unused_parameters = self.cfg.get('find_unused_parameters',\n"
        "                                          False)\n"
        "    ...\n"
        "else:\n"
        "    model_wrapper_cfg.setdefault('type', 'MMDistributedDataParallel')\n"
        "```\n\n"
        "With `model_wrapper_cfg` set, the wrapper is built from that dict alone. FlexibleRunner "
        "never calls `wrap_model`: its strategy builds the wrapper from `strategy.model_wrapper`."
        " A model with unused parameters then fails in DDP's reducer with `RuntimeError: "
        "Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing "
        "loss. You can enable unused parameter detection by passing the keyword argument "
        "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel` ...`."
    ),
    fix_doc=(
        "Moves the value into `model_wrapper_cfg` when that configures a DDP wrapper and does "
        "not set the key itself. Removes the top-level key when `model_wrapper_cfg` sets the "
        "same value; when it sets another value, no fix: which one you meant is yours "
        "to say. Under FlexibleRunner, no fix: whether the strategy's `model_wrapper` takes "
        "the keyword depends on the strategy."
    ),
    fix_safety=(
        "The moved value is what the top-level key asked for, where `wrap_model` reads it; a "
        "removed key was read by nothing."
    ),
    valid=(
        Example("cuda", "find_unused_parameters = True\n"),
        Example(
            "cuda",
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
            "find_unused_parameters=True)\n",
        ),
        Example("cuda", "find_unused_parameters = True\nmodel_wrapper_cfg = None\n"),
    ),
    invalid=(
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "find_unused_parameters = True\n"
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n",
            message=(
                "top-level `find_unused_parameters` is ignored because "
                "`model_wrapper_cfg` is set: set it there"
            ),
            location="config.py:2:26",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
                "find_unused_parameters=True)\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "runner_type = 'FlexibleRunner'\nfind_unused_parameters = True\n"
            "strategy = dict(type='DDPStrategy')\n",
            message=(
                "top-level `find_unused_parameters` is ignored by "
                "FlexibleRunner: set it in `strategy.model_wrapper`"
            ),
            location="config.py:3:26",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "runner_type = 'FlexibleRunner'\n"
                "strategy = dict(\n"
                "    type='DDPStrategy', "
                "model_wrapper=dict(find_unused_parameters=True))\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "find_unused_parameters = True\n"
            "model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
            "find_unused_parameters=True)\n",
            message=(
                "top-level `find_unused_parameters` is ignored; "
                "`model_wrapper_cfg.find_unused_parameters` sets the same value"
            ),
            location="config.py:2:26",
            fixed=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(type='MMDistributedDataParallel', "
                "find_unused_parameters=True)\n"
            ),
        ),
        Example(
            "cuda",
            "model = dict(type='ToyClassifier')\n"
            "find_unused_parameters = True\n"
            "model_wrapper_cfg = dict(find_unused_parameters=False)\n",
            message=(
                "top-level `find_unused_parameters` is ignored: DDP gets "
                "`model_wrapper_cfg.find_unused_parameters=False`"
            ),
            location="config.py:2:26",
            instead=(
                "model = dict(type='ToyClassifier')\n"
                "model_wrapper_cfg = dict(find_unused_parameters=True)\n"
            ),
        ),
    ),
    check=_check,
    fixable=True,
)
