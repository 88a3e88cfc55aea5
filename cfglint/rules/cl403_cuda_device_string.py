"""CL403: a hard-coded `device='cuda'` in a config value, on a target without CUDA."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from cfglint.loader.scan import overlay_layers, stored_entries, stored_items
from cfglint.reprs import brief_repr
from cfglint.rules.base import Example, Finding, Rule, RuleContext
from cfglint.session import per_session
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode

CODE = "CL403"
_CUDA = re.compile(r"cuda(:[0-9]+)?")
# Keys whose value is a device: `device` itself (models, hooks, evaluators, data
# preprocessors) and the few OpenMMLab spellings of it.
DEVICE_KEYS = frozenset({"device", "map_location"})


def _device_strings(root: DictNode) -> Iterator[tuple[str, ScalarNode]]:
    """Each `device`/`map_location` holding a CUDA device string, with its dotted key, in the
    order of the config's keys. The whole tree is scanned as stored (loader/scan.py); only a
    value found is taken from the tree itself, with the config's origin."""
    for parts in _cuda_keys(root, _walked()):
        node: ConfigNode = root
        for part in parts:
            if isinstance(node, DictNode):
                node = node.entries[part]
            elif isinstance(node, SequenceNode) and isinstance(part, int):
                node = node.items[part]
        assert isinstance(node, ScalarNode)
        yield ".".join(map(str, parts)), node


_Paths = tuple[tuple[object, ...], ...]
# A dict's entries or a list as stored -> (it, the key paths below it to a CUDA device string).
_Walked = dict[int, tuple[object, _Paths]]


@per_session
def _walked() -> _Walked:
    """A base's values are stored once and reached by every config inheriting it (hundreds
    share a model or a pipeline): each is walked once per command. The memo holds each value
    itself, so that its id is never another's."""
    return {}


def _cuda_keys(node: DictNode | SequenceNode, walked: _Walked) -> _Paths:
    """The key paths below `node` to a CUDA device string."""
    if isinstance(node, DictNode):
        return _entries_keys(node.entries, walked)
    hit = walked.get(id(node))
    if hit is None or hit[0] is not node:
        # An index is never a device key: only what a container item holds can be found.
        items = node.items
        found = _items_keys(enumerate(items), walked) if _any_below(items, walked) else ()
        hit = walked[id(node)] = (node, found)
    return hit[1]


def _entries_keys(entries: Mapping[object, ConfigNode], walked: _Walked) -> _Paths:
    # A config reaches a base's dict through a view of its own (rebase.py) over the very
    # entries the base stored, and a merged dict overlays a few keys on a base's entries: both
    # are walked as what they hold, so that only what the config itself wrote is new.
    entries = stored_entries(entries)
    hit = walked.get(id(entries))
    if hit is not None and hit[0] is entries:
        return hit[1]
    layers = overlay_layers(entries)
    if layers is not None:
        base, own = layers
        found = _entries_keys(base, walked) or _own_keys(own, walked)
        if found:  # rare: walked again in the merged order, where an own key replaces a base's
            found = _items_keys(stored_items(entries), walked)
    else:
        found = _own_keys(entries, walked)
    walked[id(entries)] = (entries, found)
    return found


def _own_keys(entries: Mapping[object, ConfigNode], walked: _Walked) -> _Paths:
    # Nearly every dict has no device key and nothing found below: telling that needs only a
    # look at its containers, and the paths are listed only for the few that hold one.
    if DEVICE_KEYS.isdisjoint(entries) and not _any_below(entries.values(), walked):
        return ()
    return _items_keys(entries.items(), walked)


def _any_below(children: Iterable[ConfigNode], walked: _Walked) -> bool:
    """Whether a CUDA device string is below any of these values."""
    for child in children:
        if isinstance(child, DictNode):
            if _entries_keys(child.entries, walked):
                return True
        elif isinstance(child, SequenceNode) and _cuda_keys(child, walked):
            return True
    return False


def _items_keys(children: Iterable[tuple[object, ConfigNode]], walked: _Walked) -> _Paths:
    found: list[tuple[object, ...]] = []
    for key, child in children:
        if isinstance(child, ScalarNode):
            value = child.value
            if key in DEVICE_KEYS and isinstance(value, str) and _CUDA.fullmatch(value):
                found.append((key,))
        elif isinstance(child, DictNode | SequenceNode):
            below = _cuda_keys(child, walked)
            if below:
                found.extend((key, *path) for path in below)
    return tuple(found)


def _check(ctx: RuleContext) -> Iterator[Finding]:
    host = ctx.target.host
    if host.cuda:
        return
    vendor = host.vendor_import
    unless = f" (without `{vendor.modules[0]}`)" if vendor is not None and vendor.cuda else ""
    for where, node in _device_strings(ctx.config.root):
        if where == "device":
            continue  # a top-level `device` is never read at all (CL302)
        yield Finding(
            CODE,
            f"`{where}={brief_repr(node.value)}` needs CUDA, which the target lacks{unless}",
            where,
            node,
        )


RULE = Rule(
    code=CODE,
    name="cuda-device-string",
    summary="hard-coded CUDA device in a config value on a target without CUDA",
    what=(
        "A `device` (or `map_location`) set to `'cuda'` or `'cuda:N'` anywhere in the config "
        "(a model, its data preprocessor, a hook, an evaluator) where the target's host has no "
        "CUDA (`host.cuda: false` in its target file). Where the target's vendor import "
        "redirects CUDA calls (`torch_npu.contrib.transfer_to_npu`, "
        "`torch_mlu.utils.gpu_migration`, `torch_gcu.transfer_to_gcu`), a launch whose entry "
        "script imports it first passes."
    ),
    why=(
        "MMEngine moves the model with `model.to(get_device())`, but a component built with "
        "`device='cuda'` puts its own tensors on CUDA: on a host whose PyTorch has no CUDA the "
        "first such tensor stops the job with `AssertionError: Torch not compiled with CUDA "
        "enabled`, and with a CUDA build but no NVIDIA device, `RuntimeError: Found no NVIDIA "
        "driver on your system`. On an accelerator host that does train, the component and the "
        "model end on different devices: `Expected all tensors to be on the same device`."
    ),
    fix_doc=(
        "None: the right device depends on the component (a CPU-side evaluator or the "
        "accelerator); remove the key to let MMEngine decide, or write the target's device."
    ),
    valid=(
        Example("cuda", "model = dict(type='M', data_preprocessor=dict(device='cuda'))\n"),
        Example("cpu", "model = dict(type='M', data_preprocessor=dict(device='cpu'))\n"),
        Example("cpu", "device = 'cuda'\n"),
    ),
    invalid=(
        Example(
            "ascend-npu",
            "model = dict(type='ToyClassifier')\n"
            "custom_hooks = [dict(type='EMAHook', device='cuda')]\n",
            message=(
                "`custom_hooks.0.device='cuda'` needs CUDA, which the target "
                "lacks (without `torch_npu.contrib.transfer_to_npu`)"
            ),
            location="config.py:2:45",
            instead=("model = dict(type='ToyClassifier')\ncustom_hooks = [dict(type='EMAHook')]\n"),
        ),
        Example(
            "cpu",
            "model = dict(type='ToyClassifier')\n"
            "val_evaluator = dict(type='Accuracy', device='cuda:0')\n",
            message=("`val_evaluator.device='cuda:0'` needs CUDA, which the target lacks"),
            location="config.py:2:46",
            instead=("model = dict(type='ToyClassifier')\nval_evaluator = dict(type='Accuracy')\n"),
        ),
        Example(
            "apple-mps",
            "model = dict(type='ToyClassifier')\nload_cfg = dict(map_location='cuda')\n",
            message=("`load_cfg.map_location='cuda'` needs CUDA, which the target lacks"),
            location="config.py:2:30",
            instead=("model = dict(type='ToyClassifier')\nload_cfg = dict(map_location='cpu')\n"),
        ),
    ),
    check=_check,
)
