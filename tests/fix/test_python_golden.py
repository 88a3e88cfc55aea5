"""Byte-for-byte golden tests for `.py` configs: each kind of edit, in the file's own style."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from cfglint.fix import FixNotApplicable, edits_for_file
from cfglint.types import REMOVE, KeyChange

Fixer = Callable[[str, str, Sequence[KeyChange]], str]

BACKEND = KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo")
DEVICE_IDS = KeyChange(("model_wrapper_cfg", "device_ids"), None)


def test_set_a_value_in_the_files_quote_style(fixed: Fixer) -> None:
    source = 'env_cfg = dict(\n    dist_cfg=dict(backend="nccl"),\n)\n'
    assert fixed("a.py", source, [BACKEND]) == (
        'env_cfg = dict(\n    dist_cfg=dict(backend="gloo"),\n)\n'
    )


def test_set_keeps_a_trailing_comment_on_the_line(fixed: Fixer) -> None:
    source = "env_cfg = dict(\n    dist_cfg=dict(backend='nccl'),  # NVIDIA only\n)\n"
    assert fixed("a.py", source, [BACKEND]) == (
        "env_cfg = dict(\n    dist_cfg=dict(backend='gloo'),  # NVIDIA only\n)\n"
    )


def test_non_ascii_comment_before_the_value_counts_characters(fixed: Fixer) -> None:
    source = "env_cfg = dict(dist_cfg=dict(  # 分布式后端\n    backend='nccl'))  # 通信\n"
    path = Path("a.py")
    (edit,) = edits_for_file(path, source, [BACKEND])
    assert (edit.span.line, edit.span.column, edit.span.end_column) == (2, 13, 19)
    assert fixed("a.py", source, [BACKEND]) == (
        "env_cfg = dict(dist_cfg=dict(  # 分布式后端\n    backend='gloo'))  # 通信\n"
    )
    same_line = "env_cfg = dict(note='中文说明', dist_cfg=dict(backend='nccl'))\n"
    (edit,) = edits_for_file(path, same_line, [BACKEND])
    assert (edit.span.column, edit.span.end_column) == (51, 57)


def test_add_to_multiline_dict_with_trailing_comma(fixed: Fixer) -> None:
    source = (
        "model_wrapper_cfg = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,  # keep\n"
        ")\n"
    )
    assert fixed("a.py", source, [DEVICE_IDS]) == (
        "model_wrapper_cfg = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,  # keep\n"
        "    device_ids=None,\n"
        ")\n"
    )


def test_add_to_multiline_dict_without_trailing_comma(fixed: Fixer) -> None:
    source = (
        "model_wrapper_cfg = dict(\n    type='MMDDP',\n    broadcast_buffers=False  # keep\n)\n"
    )
    assert fixed("a.py", source, [DEVICE_IDS]) == (
        "model_wrapper_cfg = dict(\n"
        "    type='MMDDP',\n"
        "    broadcast_buffers=False,  # keep\n"
        "    device_ids=None\n"
        ")\n"
    )


def test_add_to_hanging_dict_aligns_with_the_last_entry(fixed: Fixer) -> None:
    source = (
        "model_wrapper_cfg = dict(type='MMDDP',\n"
        "                         broadcast_buffers=False)\n"
    )
    assert fixed("a.py", source, [DEVICE_IDS]) == (
        "model_wrapper_cfg = dict(type='MMDDP',\n"
        "                         broadcast_buffers=False,\n"
        "                         device_ids=None)\n"
    )


def test_add_to_one_line_dict(fixed: Fixer) -> None:
    source = "model_wrapper_cfg = dict(type='MMDDP', find_unused_parameters=False)  # wrapper\n"
    changes = [DEVICE_IDS, KeyChange(("model_wrapper_cfg", "output_device"), None)]
    assert fixed("a.py", source, changes) == (
        "model_wrapper_cfg = dict(type='MMDDP', find_unused_parameters=False, device_ids=None, "
        "output_device=None)  # wrapper\n"
    )


def test_dict_literal_uses_its_own_quotes_and_spelling(fixed: Fixer) -> None:
    source = 'env_cfg = {\n    "cudnn_benchmark": False,\n    "dist_cfg": {"backend": "nccl"},\n}\n'
    changes = [
        KeyChange(("env_cfg", "dist_cfg", "timeout"), 30),
        KeyChange(("env_cfg", "mp_cfg", "mp_start_method"), "fork"),
    ]
    assert fixed("a.py", source, changes) == (
        "env_cfg = {\n"
        '    "cudnn_benchmark": False,\n'
        '    "dist_cfg": {"backend": "nccl", "timeout": 30},\n'
        '    "mp_cfg": {"mp_start_method": "fork"},\n'
        "}\n"
    )


def test_missing_nested_path_becomes_nested_dicts(fixed: Fixer) -> None:
    source = "env_cfg = dict(cudnn_benchmark=False)\n"
    assert fixed("a.py", source, [BACKEND]) == (
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
    )


def test_remove_in_multiline_dict_drops_exactly_its_line(fixed: Fixer) -> None:
    source = (
        "model_wrapper_cfg = dict(\n"
        "    type='MMDDP',\n"
        "    device_ids=[0],  # CUDA rank\n"
        "    output_device=0,\n"
        ")\n"
    )
    changes = [KeyChange(("model_wrapper_cfg", "device_ids"), REMOVE)]
    assert fixed("a.py", source, changes) == (
        "model_wrapper_cfg = dict(\n    type='MMDDP',\n    output_device=0,\n)\n"
    )


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("device_ids", "dict(type='MMDDP', output_device=0)"),
        ("output_device", "dict(type='MMDDP', device_ids=[0])"),
        ("type", "dict(device_ids=[0], output_device=0)"),
    ],
)
def test_remove_in_one_line_dict(fixed: Fixer, key: str, expected: str) -> None:
    source = "model_wrapper_cfg = dict(type='MMDDP', device_ids=[0], output_device=0)\n"
    changes = [KeyChange(("model_wrapper_cfg", key), REMOVE)]
    assert fixed("a.py", source, changes) == f"model_wrapper_cfg = {expected}\n"


def test_remove_two_neighbours_and_add_one(fixed: Fixer) -> None:
    source = "model_wrapper_cfg = dict(type='MMDDP', device_ids=[0], output_device=0)\n"
    changes = [
        KeyChange(("model_wrapper_cfg", "device_ids"), REMOVE),
        KeyChange(("model_wrapper_cfg", "output_device"), REMOVE),
        KeyChange(("model_wrapper_cfg", "broadcast_buffers"), False),
    ]
    assert fixed("a.py", source, changes) == (
        "model_wrapper_cfg = dict(type='MMDDP', broadcast_buffers=False)\n"
    )


def test_remove_of_a_missing_key_or_name_is_no_edit() -> None:
    source = "model_wrapper_cfg = dict(type='MMDDP')\n"
    changes = [
        KeyChange(("model_wrapper_cfg", "device_ids"), REMOVE),
        KeyChange(("launcher",), REMOVE),
    ]
    assert edits_for_file(Path("a.py"), source, changes) == ()


def test_new_assignment_after_single_line_base(fixed: Fixer) -> None:
    source = "_base_ = '../_base_/default_runtime.py'\n\ntrain_cfg = dict(max_iters=10)\n"
    assert fixed("a.py", source, [BACKEND]) == (
        "_base_ = '../_base_/default_runtime.py'\n"
        "\n"
        "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
        "\n"
        "train_cfg = dict(max_iters=10)\n"
    )


def test_new_assignment_after_multi_line_base_follows_a_tight_file(fixed: Fixer) -> None:
    source = "_base_ = [\n    'a.py',\n    'b.py',\n]\nlauncher = 'pytorch'\n"
    assert fixed("a.py", source, [BACKEND]) == (
        "_base_ = [\n    'a.py',\n    'b.py',\n]\n"
        "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
        "launcher = 'pytorch'\n"
    )


def test_several_new_names_form_one_edit(fixed: Fixer) -> None:
    source = "_base_ = ['a.py']\n"
    changes = [KeyChange(("launcher",), "pytorch"), BACKEND]
    edits = edits_for_file(Path("a.py"), source, changes)
    assert len(edits) == 1
    assert fixed("a.py", source, changes) == (
        "_base_ = ['a.py']\n"
        "\n"
        "launcher = 'pytorch'\n"
        "\n"
        "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    )


def test_file_without_base_gets_the_assignment_at_the_end(fixed: Fixer) -> None:
    source = "# runtime\nlog_level = 'INFO'\n"
    assert fixed("a.py", source, [BACKEND]) == (
        "# runtime\nlog_level = 'INFO'\n\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    )
    assert fixed("a.py", "", [BACKEND]) == "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"


def test_a_long_new_dict_is_written_one_key_per_line(fixed: Fixer) -> None:
    source = "_base_ = 'a.py'\n\nenv_cfg = dict(cudnn_benchmark=False)\n"
    wrapper = {
        "type": "MMDistributedDataParallel",
        "broadcast_buffers": False,
        "find_unused_parameters": False,
        "device_ids": None,
    }
    changes = [KeyChange(("model_wrapper_cfg",), wrapper)]
    assert fixed("a.py", source, changes) == (
        "_base_ = 'a.py'\n"
        "\n"
        "model_wrapper_cfg = dict(\n"
        "    type='MMDistributedDataParallel',\n"
        "    broadcast_buffers=False,\n"
        "    find_unused_parameters=False,\n"
        "    device_ids=None,\n"
        ")\n"
        "\n"
        "env_cfg = dict(cudnn_benchmark=False)\n"
    )


def test_dict_value_merges_key_by_key_into_an_existing_dict(fixed: Fixer) -> None:
    source = "model_wrapper_cfg = dict(type='MMDDP', device_ids=[0])\n"
    changes = [KeyChange(("model_wrapper_cfg",), {"type": "MMDDP", "device_ids": None})]
    expected = "model_wrapper_cfg = dict(type='MMDDP', device_ids=None)\n"
    assert fixed("a.py", source, changes) == expected


def test_remove_a_top_level_assignment(fixed: Fixer) -> None:
    source = "a = 1\nlauncher = 'slurm'  # cluster\nb = 2\n"
    assert fixed("a.py", source, [KeyChange(("launcher",), REMOVE)]) == "a = 1\nb = 2\n"


def test_values_are_rendered_as_python(fixed: Fixer) -> None:
    source = "cfg = dict(a=1)\n"
    value = {"s": "it's", "l": [1, 2.5, None], "t": (0,), "b": True, "n": -3, "u": "中文"}
    assert fixed("a.py", source, [KeyChange(("cfg", "v"), value)]) == (
        "cfg = dict(a=1, v=dict(s=\"it's\", l=[1, 2.5, None], t=(0,), b=True, n=-3, u='中文'))\n"
    )
    assert fixed("a.py", source, [KeyChange(("cfg", "v"), {"a-b": 1})]) == (
        "cfg = dict(a=1, v={'a-b': 1})\n"
    )


def test_crlf_file_stays_crlf(fixed: Fixer) -> None:
    source = "_base_ = ['a.py']\r\n\r\nmodel_wrapper_cfg = dict(\r\n    type='MMDDP',\r\n)\r\n"
    changes = [DEVICE_IDS, KeyChange(("launcher",), "pytorch")]
    assert fixed("a.py", source, changes) == (
        "_base_ = ['a.py']\r\n\r\nlauncher = 'pytorch'\r\n\r\n"
        "model_wrapper_cfg = dict(\r\n    type='MMDDP',\r\n    device_ids=None,\r\n)\r\n"
    )


def test_bom_is_kept_and_not_counted_in_columns(fixed: Fixer) -> None:
    source = "\ufeffenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n"
    (edit,) = edits_for_file(Path("a.py"), source, [BACKEND])
    assert (edit.span.line, edit.span.column) == (1, 38)
    assert fixed("a.py", source, [BACKEND]) == (
        "\ufeffenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    )


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("_base_ = ['a.py']\nenv_cfg = _base_.env_cfg\n", "set by an expression"),
        ("x = dict(backend='nccl')\nenv_cfg = dict(dist_cfg=x)\n", "set by an expression"),
        ("env_cfg = make_env()\n", "set by an expression"),
        ("d = dict()\nenv_cfg = dict(**d)\n", "unpacks"),
        ("env_cfg = dict(a=1)\nenv_cfg.update(b=2)\n", "plain assignment"),
        ("env_cfg = dict(a=1)\nenv_cfg['dist_cfg'] = dict()\n", "plain assignment"),
        ("if True:\n    env_cfg = dict()\n", "block"),
        ("from mmengine.config import read_base\nwith read_base():\n    from .a import *\n",
         "lazy import"),
        ("env_cfg = dict(a=1\n", "does not parse"),
    ],
)
def test_changes_that_cannot_be_placed_are_refused(source: str, reason: str) -> None:
    with pytest.raises(FixNotApplicable, match=reason):
        edits_for_file(Path("a.py"), source, [BACKEND])


def test_conflicting_changes_are_refused() -> None:
    changes = [BACKEND, KeyChange(("env_cfg", "dist_cfg", "backend"), "nccl")]
    with pytest.raises(FixNotApplicable, match="conflicting"):
        edits_for_file(Path("a.py"), "env_cfg = dict()\n", changes)
