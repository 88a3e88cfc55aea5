"""Byte-for-byte golden tests for changes anchored at a span (where the loader says a value is
written), and for line-length-aware replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfglint.fix import FixNotApplicable, apply_text_edits, edits_for_file
from cfglint.loader import Loader
from cfglint.types import REMOVE, KeyChange, ResolvedConfig, Span, SpanChange


def _span_of(tmp_path: Path, source: str, key: str) -> tuple[Path, Span]:
    path = tmp_path / "a.py"
    path.write_text(source, encoding="utf-8")
    loaded = Loader().load(path)
    assert isinstance(loaded, ResolvedConfig)
    node = loaded.get(key)
    assert node is not None
    return path, node.origin.span


def _anchored(path: Path, source: str, *changes: SpanChange) -> str:
    return apply_text_edits(source, edits_for_file(path, source, (), changes))


def test_removal_at_a_span_takes_the_entry_and_its_line(tmp_path: Path) -> None:
    source = (
        "wrapper = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    device_ids=[0],  # one card\n"
        ")\n"
        "model_wrapper_cfg = wrapper\n"
    )
    path, span = _span_of(tmp_path, source, "model_wrapper_cfg.device_ids")
    assert _anchored(path, source, SpanChange(span, (), REMOVE)) == source.replace(
        "    device_ids=[0],  # one card\n", ""
    )


def test_a_key_added_to_a_parenthesised_multiline_dict_goes_before_its_bracket(
    tmp_path: Path,
) -> None:
    source = "env_cfg = (dict(\n    cudnn_benchmark=False,\n))\n"
    path, span = _span_of(tmp_path, source, "env_cfg")
    change = SpanChange(span, ("dist_cfg", "backend"), "gloo")
    assert _anchored(path, source, change) == (
        "env_cfg = (dict(\n    cudnn_benchmark=False,\n    dist_cfg=dict(backend='gloo'),\n))\n"
    )


def test_a_computed_value_is_not_rewritten(tmp_path: Path) -> None:
    source = "n = 2\nenv_cfg = dict(cudnn_benchmark=n > 1)\n"
    path, span = _span_of(tmp_path, source, "env_cfg.cudnn_benchmark")
    with pytest.raises(FixNotApplicable, match="computed, not written as a literal: `n > 1`"):
        edits_for_file(path, source, (), [SpanChange(span, (), False)])


def test_a_stale_span_is_refused(tmp_path: Path) -> None:
    source = "env_cfg = dict(cudnn_benchmark=True)\n"
    path, span = _span_of(tmp_path, source, "env_cfg.cudnn_benchmark")
    moved = "\n" + source
    with pytest.raises(FixNotApplicable, match="no expression at 1:"):
        edits_for_file(path, moved, (), [SpanChange(span, (), False)])


def test_a_long_replacement_is_wrapped_in_the_files_style(tmp_path: Path) -> None:
    source = "model = dict(type='M')\nmodel_wrapper_cfg = None  # default\n"
    path, span = _span_of(tmp_path, source, "model_wrapper_cfg")
    wrapper = {
        "type": "MMDistributedDataParallel",
        "broadcast_buffers": False,
        "find_unused_parameters": False,
        "device_ids": None,
    }
    assert _anchored(path, source, SpanChange(span, (), wrapper)) == (
        "model = dict(type='M')\n"
        "model_wrapper_cfg = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,\n"
        "    find_unused_parameters=False,\n"
        "    device_ids=None,\n"
        ")  # default\n"
    )
    # A file that already has lines this long keeps the value on one line.
    wide = source + "# " + "x" * 140 + "\n"
    path.write_text(wide)
    assert _anchored(path, wide, SpanChange(span, (), wrapper)).startswith(
        "model = dict(type='M')\nmodel_wrapper_cfg = dict(type='MMDistributedDataParallel', "
        "broadcast_buffers=False, find_unused_parameters=False, device_ids=None)  # default\n"
    )


def test_a_nested_long_replacement_is_indented_like_its_line(tmp_path: Path) -> None:
    source = "cfg = dict(\n    wrapper=None,\n)\n"
    change = KeyChange(
        ("cfg", "wrapper"),
        {"type": "MMDistributedDataParallel", "find_unused_parameters": True, "x": "y" * 30},
    )
    result = apply_text_edits(source, edits_for_file(Path("a.py"), source, [change]))
    assert result == (
        "cfg = dict(\n"
        "    wrapper=dict(\n"
        "        type='MMDistributedDataParallel',\n"
        "        find_unused_parameters=True,\n"
        f"        x='{'y' * 30}',\n"
        "    ),\n"
        ")\n"
    )
