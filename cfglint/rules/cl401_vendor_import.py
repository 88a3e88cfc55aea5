"""CL401: the launch makes MMEngine resolve the CPU on an accelerator target: it trains there."""

from __future__ import annotations

from collections.abc import Iterator

from cfglint.rules.base import Example, Finding, LaunchContext, Rule
from cfglint.rules.launch_facts import (
    first_mmengine_import,
    import_of,
    last_import_of_library,
    origin_at,
    runner_index,
)
from cfglint.types import (
    Applicability,
    FixIntent,
    LaunchWorld,
    ScriptEvent,
    Span,
    TextEdit,
    VendorImport,
)

CODE = "CL401"


def _insertion(world: LaunchWorld, vendor: VendorImport, mmengine: ScriptEvent) -> TextEdit:
    """The vendor import, as its own line: after the script's own `import torch_gcu` when
    that comes first (inside the same `try:` then), else just before mmengine's import."""
    library = last_import_of_library(world, vendor.library, before=mmengine)
    anchor = library if library is not None else mmengine
    line = anchor.span.end_line + 1 if library is not None else anchor.span.line
    indent = " " * (anchor.span.column - 1)
    path = anchor.span.path
    return TextEdit(Span(path, line, 1, line, 1), f"{indent}{vendor.statement}\n")


def _launch_check(ctx: LaunchContext) -> Iterator[Finding]:
    host = ctx.declared.host
    vendor = host.vendor_import
    world = ctx.world
    if vendor is None or runner_index(world) is None:
        return
    if vendor.mmengine_device == host.mmengine_device:
        # MMEngine finds the device without it (torch_npu is imported by mmengine itself): the
        # import only redirects CUDA calls, which CL402 reports where they are made.
        return
    mmengine = first_mmengine_import(world)
    switch = import_of(world, vendor.modules)
    order = {id(event): index for index, event in enumerate(world.events)}
    if switch is not None and (mmengine is None or order[id(switch)] < order[id(mmengine)]):
        return
    module = vendor.modules[0]
    if mmengine is None:
        return  # mmengine comes through another module: cfglint cannot tell the order
    fix = FixIntent(
        f"Import `{module}` before mmengine",
        (),
        Applicability.UNSAFE,
        edits=(_insertion(world, vendor, mmengine),),
    )
    if switch is not None:
        yield Finding(
            CODE,
            f"`{module}` is imported after mmengine (line {mmengine.span.line}), too late: "
            f"MMEngine resolves `{host.mmengine_device}`",
            module,
            None,
            fix,
            at=origin_at(switch.span),
        )
        return
    yield Finding(
        CODE,
        f"no `{module}` import before mmengine: MMEngine resolves `{host.mmengine_device}` and "
        "trains there",
        module,
        None,
        fix,
        at=origin_at(mmengine.span),
    )


_CONFIG = (
    "model = dict(type='ToyClassifier')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
_BODY = (
    "import argparse\n"
    "from mmengine.config import Config\n"
    "from mmengine.runner import Runner\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('config')\n"
    "cfg = Config.fromfile(parser.parse_args().config)\n"
    "Runner.from_cfg(cfg).train()\n"
)

RULE = Rule(
    code=CODE,
    name="accelerator-not-seen",
    summary="the launch makes MMEngine train on the CPU of an accelerator host",
    what=(
        "For a target whose accelerator MMEngine finds only through the vendor's library "
        "(`t20-gcu`: `torch_gcu.transfer_to_gcu`, named in the target file under "
        "`host.vendor-import`), the entry script reaches the Runner without importing that "
        "module before its first mmengine import (any OpenMMLab package imports mmengine). "
        "Checked through a launch only: a launcher script, `--entry`, or `entry-points`."
    ),
    why=(
        "MMEngine decides its device once, when `mmengine.device` is imported: it looks for "
        "npu, cuda, mlu, mps, dipu and musa and falls back to `cpu`. It does not know the GCU. "
        "`Runner.wrap_model` then moves the model to the CPU. With `device_ids` left to MMEngine "
        "every rank stops with DDP's `ValueError: DistributedDataParallel device_ids and "
        "output_device arguments only work with single-device/multiple-device GPU modules or "
        "CPU modules ...` (CL201); with `device_ids=None` DDP accepts the CPU module and the "
        "8-card job **trains on the CPU**, slowly and silently. Enflame's porting guide has the "
        "script import `torch_gcu` and then `from torch_gcu import transfer_to_gcu` before "
        "anything else: CUDA calls then go to the GCU, `torch.cuda.is_available()` answers for "
        "it, and MMEngine resolves `cuda`, which is the GCU. After mmengine has been imported "
        "the import comes too late."
    ),
    fix_doc=(
        "Inserts the target's import (`from torch_gcu import transfer_to_gcu  # noqa: F401` for "
        "`t20-gcu`) just before the script's first mmengine import, or right after its own "
        "`import torch_gcu` (inside the same `try:` when it is guarded)."
    ),
    fix_safety=(
        "The script then needs the vendor library wherever it runs, unless that import is guarded."
    ),
    valid=(
        Example(
            "t20-gcu",
            _CONFIG,
            "import torch_gcu\nfrom torch_gcu import transfer_to_gcu\n" + _BODY,
        ),
        Example("cpu", _CONFIG, _BODY),
        Example("cuda", "model = dict(type='ToyClassifier')\n", _BODY),
    ),
    invalid=(
        Example(
            "t20-gcu",
            _CONFIG,
            _BODY,
            message=(
                "no `torch_gcu.transfer_to_gcu` import before mmengine: MMEngine "
                "resolves `cpu` and trains there"
            ),
            location="entry.py:2:1",
            fixed=(
                "import argparse\n"
                "from torch_gcu import transfer_to_gcu  # noqa: F401\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "cfg = Config.fromfile(parser.parse_args().config)\n"
                "Runner.from_cfg(cfg).train()\n"
            ),
        ),
        Example(
            "t20-gcu",
            _CONFIG,
            _BODY.replace(
                "import Runner\n", "import Runner\nfrom torch_gcu import transfer_to_gcu\n"
            ),
            message=(
                "`torch_gcu.transfer_to_gcu` is imported after mmengine (line "
                "2), too late: MMEngine resolves `cpu`"
            ),
            location="entry.py:4:1",
            fixed=(
                "import argparse\n"
                "from torch_gcu import transfer_to_gcu  # noqa: F401\n"
                "from mmengine.config import Config\n"
                "from mmengine.runner import Runner\n"
                "from torch_gcu import transfer_to_gcu\n"
                "parser = argparse.ArgumentParser()\n"
                "parser.add_argument('config')\n"
                "cfg = Config.fromfile(parser.parse_args().config)\n"
                "Runner.from_cfg(cfg).train()\n"
            ),
        ),
    ),
    check=None,
    fixable=True,
    launch_check=_launch_check,
)
