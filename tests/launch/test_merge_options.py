"""`cfg.merge_from_dict(options)` on the interpreter's values, against MMEngine's own.

Each case runs through real `mmengine.Config.merge_from_dict` and through cfglint's; the results
must be equal (tuple vs list included), or both must fail.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from cfglint.launch.merge_options import merge_from_dict
from cfglint.loader.values import DefiniteError, VDict, copy_data, freeze, from_py
from cfglint.types import Origin, Span, to_python

Config = pytest.importorskip("mmengine.config").Config

ORIGIN = Origin(Span(Path("/x.py"), 1, 1, 1, 1), (Path("/x.py"),))

BASE = {
    "model": {"type": "RetinaNet", "backbone": {"type": "ResNet", "depth": 50}},
    "train_pipeline": [{"type": "LoadImage"}, {"type": "Resize", "scale": (1333, 800)}],
    "env_cfg": {"cudnn_benchmark": False, "dist_cfg": {"backend": "nccl"}},
    "launcher": "none",
    "lr": 0.01,
}

CASES = [
    {"model.backbone.depth": 101},
    {"model.backbone.depth": 101, "model.neck.type": "FPN"},
    {"env_cfg.cudnn_benchmark": True, "env_cfg.dist_cfg.backend": "gloo"},
    {"model_wrapper_cfg.device_ids": [0], "model_wrapper_cfg.type": "MMDistributedDataParallel"},
    {"train_pipeline.0.type": "LoadImageFromFile"},
    {"train_pipeline.1.scale": (640, 640)},
    {"train_pipeline.5.type": "X"},
    {"train_pipeline.0": "oops"},
    {"launcher.x": 1},
    {"lr.x": 1},
    {"model": None},
    {"model._delete_": True, "model.type": "FasterRCNN"},
    {"train_pipeline": [1, 2]},
    {"new_key": (1, 2), "other": [1, [2, 3]]},
    {"env_cfg.dist_cfg": "gloo"},
]


def _theirs(options: dict[str, object]) -> tuple[str, object]:
    config = Config(copy.deepcopy(BASE))
    try:
        config.merge_from_dict(copy.deepcopy(options))
    except Exception as error:  # MMEngine fails: the script stops there
        return "error", type(error).__name__
    return "ok", config.to_dict()


def _mine(options: dict[str, object]) -> tuple[str, object]:
    config = copy_data(from_py(copy.deepcopy(BASE), ORIGIN), "config_dict")
    assert isinstance(config, VDict)
    given = from_py(copy.deepcopy(options), ORIGIN)
    assert isinstance(given, VDict)
    try:
        merge_from_dict(config, given)
    except DefiniteError as error:
        return "error", error.reason.partition(":")[0]
    return "ok", to_python(freeze(config))


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple)
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


@pytest.mark.parametrize("options", CASES, ids=[str(i) for i in range(len(CASES))])
def test_merge_from_dict_as_mmengine(options: dict[str, object]) -> None:
    theirs, mine = _theirs(options), _mine(options)
    assert mine[0] == theirs[0], (mine, theirs)
    if theirs[0] == "ok":
        assert _same(mine[1], theirs[1]), (mine[1], theirs[1])
