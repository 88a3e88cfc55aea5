"""CL502: SyncBN in a distributed job on a host whose device SyncBatchNorm rejects."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, Rule, RuleContext
from cfglint.rules.keys import Present, key_state
from cfglint.rules.type_names import type_name
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode

CODE = "CL502"
ERROR = "ValueError: SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone"
# The registry names of synchronised batch norm layers in OpenMMLab configs (torch's, mmcv's).
SYNC_BN_TYPES = frozenset({"SyncBN", "MMSyncBN", "SyncBatchNorm"})


def _sync_bn_layers(node: ConfigNode, path: str) -> Iterator[tuple[str, ScalarNode]]:
    if isinstance(node, DictNode):
        kind = node.get("type")
        if isinstance(kind, ScalarNode) and type_name(kind) in SYNC_BN_TYPES and path:
            yield path, kind
        for key, child in node.entries.items():
            yield from _sync_bn_layers(child, f"{path}.{key}" if path else str(key))
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.items):
            yield from _sync_bn_layers(item, f"{path}.{index}")


def _distributed(root: DictNode) -> bool:
    """MMEngine's Runner is distributed exactly when `launcher` is not 'none'."""
    state = key_state(root, "launcher")
    return (
        isinstance(state, Present)
        and isinstance(state.node, ScalarNode)
        and state.node.value not in (None, "none")
    )


def _check(ctx: RuleContext) -> Iterator[Finding]:
    host = ctx.target.host
    root = ctx.config.root
    if host.sync_batchnorm is not False or not _distributed(root):
        return  # not distributed: Runner.wrap_model reverts SyncBN to BatchNorm
    device = host.mmengine_device
    found = list(_sync_bn_layers(root, ""))
    for where, node in found[:1]:  # one finding per config: the first layer the model builds
        yield Finding(
            CODE,
            f"SyncBN at `{where}` fails in distributed training: SyncBatchNorm rejects "
            f"{device!r} tensors",
            where,
            node,
        )
    sync_bn = key_state(root, "sync_bn")
    if (
        isinstance(sync_bn, Present)
        and isinstance(sync_bn.node, ScalarNode)
        and sync_bn.node.value is not None
    ):
        yield Finding(
            CODE,
            f"`sync_bn={brief_repr(sync_bn.node.value)}` converts BatchNorm to SyncBatchNorm, "
            f"which rejects {device!r} tensors",
            "sync_bn",
            sync_bn.node,
        )


_LAUNCHED = "launcher = 'pytorch'\n"

RULE = Rule(
    code=CODE,
    name="sync-bn",
    summary="SyncBN in distributed training where SyncBatchNorm rejects the device",
    what=(
        "A `norm_cfg=dict(type='SyncBN')` (or `MMSyncBN`) anywhere in the config, or a "
        "top-level `sync_bn`, in a config whose `launcher` is not `'none'`, on a target whose "
        "file says torch's SyncBatchNorm does not train on the device MMEngine resolves there "
        "(`host.sync-batchnorm: false`: `cpu`, `apple-mps`, `t20-gcu` without its vendor "
        "import). One finding per config, at the first SyncBN layer. Through a launch the "
        "entry script's `--launcher` counts (`cfg.launcher = args.launcher` in `tools/train.py`)."
    ),
    why=(
        "Without distribution MMEngine's `Runner.wrap_model` reverts SyncBN: 'Distributed "
        "training is not used, all SyncBatchNorm (SyncBN) layers in the model will be "
        "automatically reverted to BatchNormXd layers if they are used.' With a launcher it "
        "keeps them (and `sync_bn='torch'` converts every BatchNorm), and PyTorch's "
        "`SyncBatchNorm.forward` refuses anything but cuda, hpu, xpu and the privateuse1 "
        "backend once a process group exists. The first training iteration stops with\n\n"
        f"```\n{ERROR}\n```\n\n"
        "(PyTorch 2.13 on this machine, one gloo rank, a SyncBatchNorm in training mode)."
    ),
    fix_doc=(
        "None: `BN` is the exact equivalent only for one process; across processes the "
        "statistics are no longer synchronised. Use `dict(type='BN')` in the CPU config, or "
        "train without a launcher."
    ),
    valid=(
        Example("cpu", "model = dict(type='M', norm_cfg=dict(type='SyncBN'))\n"),
        Example("cuda", _LAUNCHED + "model = dict(type='M', norm_cfg=dict(type='SyncBN'))\n"),
        Example("cpu", _LAUNCHED + "model = dict(type='M', norm_cfg=dict(type='BN'))\n"),
    ),
    invalid=(
        Example(
            "cpu",
            _LAUNCHED + "norm_cfg = dict(type='SyncBN', requires_grad=True)\n"
            "model = dict(type='M', backbone=dict(norm_cfg=norm_cfg))\n",
            message=(
                "SyncBN at `norm_cfg` fails in distributed training: "
                "SyncBatchNorm rejects 'cpu' tensors"
            ),
            location="config.py:2:22",
            instead=(
                "launcher = 'pytorch'\n"
                "norm_cfg = dict(type='BN', requires_grad=True)\n"
                "model = dict(type='M', backbone=dict(norm_cfg=norm_cfg))\n"
            ),
        ),
        Example(
            "apple-mps",
            "model = dict(type='ToyClassifier')\n" + _LAUNCHED + "sync_bn = 'torch'\n",
            message=(
                "`sync_bn='torch'` converts BatchNorm to SyncBatchNorm, which rejects 'mps' tensors"
            ),
            location="config.py:3:11",
            instead=("model = dict(type='ToyClassifier')\nlauncher = 'pytorch'\n"),
        ),
    ),
    check=_check,
)
