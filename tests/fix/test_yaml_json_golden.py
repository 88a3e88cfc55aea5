"""Byte-for-byte golden tests for `.yaml` and `.json` configs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from cfglint.fix import FixNotApplicable, edits_for_file
from cfglint.types import REMOVE, KeyChange

Fixer = Callable[[str, str, Sequence[KeyChange]], str]

YAML = """\
# runtime (运行时)
env_cfg:
  cudnn_benchmark: true  # 加速
  dist_cfg:
    backend: nccl   # 通信后端
  mp_cfg: {mp_start_method: fork, opencv_num_threads: 0}

model_wrapper_cfg:
  type: MMDistributedDataParallel
  device_ids: [0]
  output_device: 0
launcher:
"""


def test_yaml_set_keeps_comment_and_columns_count_characters(fixed: Fixer) -> None:
    change = KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo")
    (edit,) = edits_for_file(Path("a.yaml"), YAML, [change])
    assert (edit.span.line, edit.span.column, edit.span.end_column) == (5, 14, 18)
    assert fixed("a.yaml", YAML, [change]) == YAML.replace("nccl", "gloo")


def test_yaml_add_remove_and_nested_missing_path(fixed: Fixer) -> None:
    changes = [
        KeyChange(("model_wrapper_cfg", "device_ids"), None),
        KeyChange(("model_wrapper_cfg", "output_device"), REMOVE),
        KeyChange(("model_wrapper_cfg", "broadcast_buffers"), False),
        KeyChange(("env_cfg", "dist_cfg", "timeout"), 1800),
        KeyChange(("env_cfg", "mp_cfg", "opencv_num_threads"), REMOVE),
        KeyChange(("env_cfg", "extra", "path"), "a: b"),
        KeyChange(("launcher",), "pytorch"),
        KeyChange(("default_scope",), "mmpretrain"),
    ]
    assert fixed("a.yaml", YAML, changes) == """\
# runtime (运行时)
env_cfg:
  cudnn_benchmark: true  # 加速
  dist_cfg:
    backend: nccl   # 通信后端
    timeout: 1800
  mp_cfg: {mp_start_method: fork}
  extra:
    path: 'a: b'

model_wrapper_cfg:
  type: MMDistributedDataParallel
  device_ids: null
  broadcast_buffers: false
launcher: pytorch
default_scope: mmpretrain
"""


def test_yaml_crlf_and_bom(fixed: Fixer) -> None:
    source = "\ufeff" + YAML.replace("\n", "\r\n")
    changes = [KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo"), KeyChange(("new",), 1)]
    expected = "\ufeff" + (YAML.replace("nccl", "gloo") + "new: 1\n").replace("\n", "\r\n")
    assert fixed("a.yml", source, changes) == expected


def test_yaml_refuses_aliases_and_emptying_a_mapping() -> None:
    shared = "base: &b {backend: nccl}\nenv_cfg:\n  dist_cfg: *b\n"
    with pytest.raises(FixNotApplicable, match=r"alias|anchor"):
        edits_for_file(Path("a.yaml"), shared, [KeyChange(("env_cfg", "dist_cfg", "backend"), "x")])
    only = "env_cfg:\n  dist_cfg:\n    backend: nccl\n"
    removal = KeyChange(("env_cfg", "dist_cfg", "backend"), REMOVE)
    with pytest.raises(FixNotApplicable, match="null"):
        edits_for_file(Path("a.yaml"), only, [removal])


JSON = """\
{
    "env_cfg": {
        "cudnn_benchmark": true,
        "dist_cfg": {"backend": "nccl", "timeout": 1800}
    },
    "model_wrapper_cfg": {
        "type": "MMDistributedDataParallel",
        "device_ids": [0],
        "output_device": 0
    }
}
"""


def test_json_set_add_and_remove_keep_indentation(fixed: Fixer) -> None:
    changes = [
        KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo"),
        KeyChange(("env_cfg", "dist_cfg", "timeout"), REMOVE),
        KeyChange(("model_wrapper_cfg", "device_ids"), None),
        KeyChange(("model_wrapper_cfg", "output_device"), REMOVE),
        KeyChange(("env_cfg", "mp_cfg"), {"mp_start_method": "fork"}),
        KeyChange(("launcher",), "pytorch"),
    ]
    assert fixed("a.json", JSON, changes) == """\
{
    "env_cfg": {
        "cudnn_benchmark": true,
        "dist_cfg": {"backend": "gloo"},
        "mp_cfg": {
            "mp_start_method": "fork"
        }
    },
    "model_wrapper_cfg": {
        "type": "MMDistributedDataParallel",
        "device_ids": null
    },
    "launcher": "pytorch"
}
"""


def test_json_one_line_object_and_crlf(fixed: Fixer) -> None:
    source = '{"a": 1, "b": {}}'
    changes = [KeyChange(("b", "c"), "中文"), KeyChange(("a",), REMOVE)]
    assert fixed("a.json", source, changes) == '{"b": {"c": "中文"}}'
    crlf = '{\r\n  "a": 1\r\n}\r\n'
    expected = '{\r\n  "a": 1,\r\n  "b": [\r\n    1\r\n  ]\r\n}\r\n'
    assert fixed("a.json", crlf, [KeyChange(("b",), [1])]) == expected


def test_yaml_replaced_string_keeps_the_quotes_it_had(fixed: Fixer) -> None:
    change = KeyChange(("env_cfg", "dist_cfg", "backend"), "gloo")
    single = "env_cfg:\n  dist_cfg:\n    backend: 'nccl'  # quoted\n"
    assert fixed("a.yaml", single, [change]) == single.replace("'nccl'", "'gloo'")
    double = 'env_cfg: {dist_cfg: {backend: "nccl"}}\n'
    assert fixed("a.yaml", double, [change]) == double.replace('"nccl"', '"gloo"')
    plain = "env_cfg:\n  dist_cfg:\n    backend: nccl\n"
    assert fixed("a.yaml", plain, [change]) == plain.replace("nccl", "gloo")
