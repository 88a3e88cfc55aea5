"""Each failure a rank can hit maps to the rule that reports it without running anything."""

from __future__ import annotations

from cfglint.dryrun.result import Frame, RankError
from cfglint.dryrun.rule_map import rules_for

DDP = (
    "DistributedDataParallel device_ids and output_device arguments only work with "
    "single-device/multiple-device GPU modules or CPU modules, but got device_ids [{ids}], "
    "output_device {out}, and module parameters {{device(type='cpu')}}."
)


def codes(error: RankError) -> list[str]:
    return [hit.code for hit in rules_for(error)]


def test_ddp_device_ids_error_is_cl201_and_a_set_output_device_adds_cl202() -> None:
    assert codes(RankError("wrap", "ValueError", DDP.format(ids=3, out="None"))) == ["CL201"]
    assert codes(RankError("wrap", "ValueError", DDP.format(ids=0, out=0))) == ["CL201", "CL202"]
    (hit,) = rules_for(RankError("wrap", "ValueError", DDP.format(ids=3, out="None")))
    assert (
        hit.why == "DDP got device_ids [3] for a model on {device(type='cpu')}; only "
        "device_ids=None works there"
    )


def test_init_dist_calling_cuda_set_device_is_cl102_whatever_torch_says() -> None:
    frames = (
        Frame("mmengine/dist/utils.py", 85, "init_dist"),
        Frame("mmengine/dist/utils.py", 130, "_init_dist_pytorch"),
        Frame("torch/cuda/__init__.py", 689, "set_device"),
    )
    cpu_build = RankError(
        "setup_env",
        "AttributeError",
        "module 'torch._C' has no attribute '_cuda_setDevice'",
        frames,
    )
    no_driver = RankError(
        "setup_env", "RuntimeError", "Found no NVIDIA driver on your system.", frames[:2]
    )
    assert codes(cpu_build) == ["CL102"]
    assert codes(no_driver) == ["CL102"]


def test_unrelated_errors_map_to_nothing() -> None:
    assert (
        codes(
            RankError(
                "wrap",
                "RuntimeError",
                "Expected all tensors to be on the same "
                "device, but found at least two devices, cuda:1 and cuda:0!",
            )
        )
        == []
    )
    assert codes(RankError("setup_env", "RuntimeError", "Found no NVIDIA driver")) == []
