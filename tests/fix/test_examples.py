"""The shipped example configs as realistic inputs (read, never edited)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLES

from cfglint.fix import apply_text_edits, check_still_valid, edits_for_file, write_atomic
from cfglint.types import KeyChange

CONFIGS = EXAMPLES / "configs"
WRAPPER = {
    "type": "MMDistributedDataParallel",
    "broadcast_buffers": False,
    "find_unused_parameters": False,
    "device_ids": None,
}


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as stream:
        return stream.read()


def test_dinov3_wrapper_gets_device_ids_as_a_new_line() -> None:
    path = CONFIGS / "dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py"
    source = _read(path)
    edits = edits_for_file(path, source, [KeyChange(("model_wrapper_cfg", "device_ids"), None)])
    assert [(e.span.line, e.span.column, e.content) for e in edits] == [
        (15, 1, "    device_ids=None,\n")
    ]
    result = apply_text_edits(source, edits)
    assert result == source.replace(
        "    broadcast_buffers=False,\n)", "    broadcast_buffers=False,\n    device_ids=None,\n)"
    )


def test_smoke_config_without_wrapper_gets_one_after_its_base_block() -> None:
    path = CONFIGS / "gcu_smoke/toy_gcu_smoke.py"
    source = _read(path)
    edits = edits_for_file(path, source, [KeyChange(("model_wrapper_cfg",), WRAPPER)])
    result = apply_text_edits(source, edits)
    base_end = source.index("]\n") + 2
    assert result == (
        source[:base_end]
        + "\nmodel_wrapper_cfg = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,\n"
        "    find_unused_parameters=False,\n"
        "    device_ids=None,\n"
        ")\n"
        + source[base_end:]
    )
    assert check_still_valid(path, result) is None


def test_fixed_example_still_loads_in_mmengine_with_the_new_values(tmp_path: Path) -> None:
    config_module = pytest.importorskip("mmengine.config")
    tree = tmp_path / "configs"
    shutil.copytree(CONFIGS, tree)
    leaf = tree / "dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py"
    changes = [
        KeyChange(("model_wrapper_cfg", "device_ids"), None),
        KeyChange(("model_wrapper_cfg", "output_device"), None),
        KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo"),
    ]
    source = _read(leaf)
    write_atomic(leaf, apply_text_edits(source, edits_for_file(leaf, source, changes)))
    config = config_module.Config.fromfile(str(leaf), import_custom_modules=False)
    assert config.model_wrapper_cfg.device_ids is None
    assert config.model_wrapper_cfg.output_device is None
    assert config.env_cfg.dist_cfg.backend == "gloo"
    assert config.env_cfg.mp_cfg.mp_start_method == "fork"  # merged from the base, untouched
