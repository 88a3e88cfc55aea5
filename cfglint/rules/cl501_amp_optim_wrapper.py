"""CL501: AmpOptimWrapper where MMEngine's own assertion rejects the device."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, JsonSchema, Rule, RuleContext
from cfglint.rules.schema import value_at_key
from cfglint.rules.values import check_value
from cfglint.targets.catalogue import RULE_KEYS
from cfglint.targets.model import KeyPolicy

CODE = "CL501"
ASSERTION = (
    "AssertionError: ``AmpOptimizerWrapper`` is only available training on gpu, npu, mlu or musa"
)


def _describe(ctx: RuleContext, value: object, is_default: bool) -> str:
    return (
        f"`{ctx.key}={brief_repr(value)}` needs cuda/npu/mlu/musa; MMEngine resolves "
        f"{ctx.target.host.mmengine_device!r} on the target"
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    yield from check_value(ctx, CODE, _describe, "")


def _schema(policy: KeyPolicy) -> JsonSchema:
    return value_at_key(RULE_KEYS[CODE], policy)


_TRAIN = (
    "import argparse\n"
    "from mmengine.config import Config\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "parser.add_argument('--amp', action='store_true')\n"
    "args = parser.parse_args()\n"
    "cfg = Config.fromfile(args.config)\n"
    "if args.amp is True:\n"
    "    cfg.optim_wrapper.type = 'AmpOptimWrapper'\n"
    "    cfg.optim_wrapper.loss_scale = 'dynamic'\n"
    "Runner.from_cfg(cfg).train()\n"
)
# With the vendor import first, MMEngine resolves 'cuda' on a T20 host: AMP's check holds.
_TRAIN_VENDOR_FIRST = _TRAIN.replace(
    "import argparse\n",
    "import argparse\nimport torch_gcu\nfrom torch_gcu import transfer_to_gcu\n",
)
_SGD = "optimizer=dict(type='SGD', lr=0.01)"


def _amp_example(target: str, written: str, device: str) -> Example:
    """A config whose `optim_wrapper.type` is `written`, on a target whose host MMEngine
    resolves to `device`."""
    return Example(
        target,
        f"model = dict(type='ToyClassifier')\noptim_wrapper = dict(type={written}, {_SGD})\n",
        message=(
            f"`optim_wrapper.type={written}` needs cuda/npu/mlu/musa; "
            f"MMEngine resolves {device!r} on the target"
        ),
        location="config.py:2:27",
        instead=(
            "model = dict(type='ToyClassifier')\n"
            f"optim_wrapper = dict(type='OptimWrapper', {_SGD})\n"
        ),
    )


RULE = Rule(
    code=CODE,
    name="amp-optim-wrapper",
    summary="AmpOptimWrapper on a device MMEngine's AMP wrapper rejects",
    what=(
        "`optim_wrapper.type` is `'AmpOptimWrapper'` (also written with its scope, "
        "`'mmengine.AmpOptimWrapper'`, or as the class a lazy-import config imports) on a "
        "target whose host MMEngine resolves "
        "to a device its AMP wrapper does not accept: `cpu`, `apple-mps`, and `t20-gcu` without "
        "`torch_gcu.transfer_to_gcu` imported first. Through a launch, the entry script's own "
        "switch counts too: OpenMMLab's `tools/train.py --amp` sets "
        "`cfg.optim_wrapper.type = 'AmpOptimWrapper'`."
    ),
    why=(
        "MMEngine 0.10's `mmengine/optim/optimizer/amp_optimizer_wrapper.py` checks the device "
        "when the Runner builds the optimizer wrapper:\n\n"
        "```python\n"
        "assert is_cuda_available() or is_npu_available() or is_mlu_available(\n"
        ") or is_musa_available(), (\n"
        "    '``AmpOptimizerWrapper`` is only available training '\n"
        "    'on gpu, npu, mlu or musa')\n"
        "```\n\n"
        f"so the job stops before the first iteration with\n\n```\n{ASSERTION}\n```\n\n"
        "(loading this page's first flagged example with MMEngine 0.10.7 on a CPU host and "
        "building its `optim_wrapper` raises exactly that). MPS is not in the list, and a T20 "
        "host answers `torch.cuda.is_available()` only once `transfer_to_gcu` is imported."
    ),
    fix_doc=(
        "None. `OptimWrapper` would train in full precision, and its constructor rejects the "
        "AMP wrapper's own keys (`loss_scale`, `dtype`); choose what to train with by hand."
    ),
    valid=(
        Example("cpu", f"optim_wrapper = dict(type='OptimWrapper', {_SGD})\n"),
        Example("cuda", f"optim_wrapper = dict(type='AmpOptimWrapper', {_SGD})\n"),
        Example("ascend-npu", f"optim_wrapper = dict(type='AmpOptimWrapper', {_SGD})\n"),
        Example(
            "t20-gcu",
            f"optim_wrapper = dict(type='OptimWrapper', {_SGD})\n",
            _TRAIN_VENDOR_FIRST,
            ("--amp",),
        ),
    ),
    invalid=(
        _amp_example("cpu", "'AmpOptimWrapper'", "cpu"),
        _amp_example("apple-mps", "'AmpOptimWrapper'", "mps"),
        # The name behind its registry's scope builds the same class.
        _amp_example("cpu", "'mmengine.AmpOptimWrapper'", "cpu"),
        Example(
            "cpu",
            "from mmengine.optim import AmpOptimWrapper\n"
            "from torch.optim import SGD\n"
            "\n"
            "model = dict(type='ToyClassifier')\n"
            "optim_wrapper = dict(type=AmpOptimWrapper, optimizer=dict(type=SGD, lr=0.01))\n",
            message=(
                "`optim_wrapper.type=mmengine.optim.AmpOptimWrapper` needs cuda/npu/mlu/musa; "
                "MMEngine resolves 'cpu' on the target"
            ),
            location="config.py:1:1",
            instead=(
                "from mmengine.optim import OptimWrapper\n"
                "from torch.optim import SGD\n"
                "\n"
                "model = dict(type='ToyClassifier')\n"
                "optim_wrapper = dict(type=OptimWrapper, optimizer=dict(type=SGD, lr=0.01))\n"
            ),
        ),
        Example(
            "t20-gcu",
            "model = dict(type='ToyClassifier')\n"
            f"optim_wrapper = dict(type='OptimWrapper', {_SGD})\n",
            _TRAIN,
            ("--amp",),
            message=(
                "`optim_wrapper.type='AmpOptimWrapper'` needs cuda/npu/mlu/musa; "
                "MMEngine resolves 'cpu' on the target"
            ),
            location="entry.py:10:30",
            instead=_TRAIN_VENDOR_FIRST,
        ),
    ),
    check=_check,
    schema=_schema,
)
