"""YAML and JSON values carry their exact source range, through MMEngine's text substitution."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cfglint.loader import Loader
from cfglint.types import ResolvedConfig, Span, UnknownNode, walk_nodes

WriteTree = Callable[[dict[str, str | bytes]], Path]

YAML = """\
名前: '值'
backend: 'pytorch'
ids: [0, 1]
nested:
  - x
  - {y: 1, z: "two"}
block: |
  hi
  there
plain: some text  # a comment
anchored: &A {k: 1}
merged:
  <<: *A
  m: 2
tagged: !!python/tuple [1, 2]
env: '{{$DATA_ROOT:/data}}/coco'
name: '{{ fileBasenameNoExtension }}-x'
after: 3
"""

JSON = (
    '{\n  "backend": "pytorch",\n  "ids": [0, 1],\n  "emoji": "\\ud83d\\ude00",\n'
    '  "cfg": {"a": NaN, "b": [true, null]},\n  "root": "{{$ROOT:/r}}",\n  "n": -1.5e3\n}\n'
)


def _text(span: Span) -> str:
    lines = span.path.read_text(encoding="utf-8").splitlines(keepends=True)
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    middle = lines[span.line : span.end_line - 1]
    first = lines[span.line - 1][span.column - 1 :]
    return first + "".join(middle) + lines[span.end_line - 1][: span.end_column - 1]


def _spans(config: ResolvedConfig) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, node in config.root.entries.items():
        for dotted, inner in walk_nodes(node, str(key)):
            found[dotted] = _text(inner.origin.span)
    return found


def _resolve(path: Path) -> ResolvedConfig:
    result = Loader().load(path)
    assert isinstance(result, ResolvedConfig), result
    return result


def test_yaml_values_span_exactly_their_source(tree: WriteTree) -> None:
    root = tree({"c.yaml": YAML})
    config = _resolve(root / "c.yaml")
    spans = _spans(config)
    assert spans == {
        "名前": "'值'",
        "backend": "'pytorch'",
        "ids": "[0, 1]",
        "ids.0": "0",
        "ids.1": "1",
        "nested": '- x\n  - {y: 1, z: "two"}',
        "nested.0": "x",
        "nested.1": '{y: 1, z: "two"}',
        "nested.1.y": "1",
        "nested.1.z": '"two"',
        "block": "|\n  hi\n  there",
        "plain": "some text",
        "anchored": "{k: 1}",
        "anchored.k": "1",
        "merged": "<<: *A\n  m: 2",
        "merged.k": "1",  # merged in from the anchor: where it is written
        "merged.m": "2",
        "tagged": "[1, 2]",
        "tagged.0": "1",
        "tagged.1": "2",
        "env": "'{{$DATA_ROOT:/data}}/coco'",
        "name": "'{{ fileBasenameNoExtension }}-x'",
        "after": "3",
    }
    env, after = config.get("env"), config.get("after")
    assert env is not None and env.origin.env_dependent
    assert after is not None and not after.origin.env_dependent
    backend = config.get("backend")
    assert backend is not None
    span = backend.origin.span
    assert (span.line, span.column, span.end_line, span.end_column) == (2, 10, 2, 19)


def test_json_values_span_exactly_their_source(tree: WriteTree) -> None:
    root = tree({"c.json": JSON})
    config = _resolve(root / "c.json")
    assert _spans(config) == {
        "backend": '"pytorch"',
        "ids": "[0, 1]",
        "ids.0": "0",
        "ids.1": "1",
        "emoji": '"\\ud83d\\ude00"',
        "cfg": '{"a": NaN, "b": [true, null]}',
        "cfg.a": "NaN",
        "cfg.b": "[true, null]",
        "cfg.b.0": "true",
        "cfg.b.1": "null",
        "root": '"{{$ROOT:/r}}"',
        "n": "-1.5e3",
    }
    emoji = config.get("emoji")
    assert emoji is not None and getattr(emoji, "value", None) == "\U0001f600"


@pytest.mark.parametrize(
    ("name", "text", "line", "column"),
    [
        ("bad.yaml", "a: 1\nb: [1, 2\n", 3, 1),
        ("bad.json", '{"a": 1,\n "b": }\n', 2, 7),
        ("sub.yaml", "a: '{{ fileBasename }}'\nb: [1\n", 3, 1),
    ],
)
def test_syntax_errors_point_into_the_file_as_written(
    tree: WriteTree, name: str, text: str, line: int, column: int
) -> None:
    root = tree({name: text})
    result = Loader().load(root / name)
    assert not isinstance(result, ResolvedConfig)
    (problem,) = result.problems
    assert (problem.code, problem.span.line, problem.span.column) == ("CL901", line, column)


def test_yaml_python_tags_are_never_constructed(tree: WriteTree) -> None:
    root = tree(
        {
            "c.yaml": "a: !!python/object/apply:os.system ['touch pwned']\n"
            "b: !!python/object/new:builtins.list [[1]]\nc: 1\n"
        }
    )
    config = _resolve(root / "c.yaml")
    a, b = config.get("a"), config.get("b")
    assert type(a).__name__ == "UnknownNode" and type(b).__name__ == "UnknownNode"
    assert getattr(a, "source", "") == "!!python/object/apply:os.system ['touch pwned']"
    assert not (root / "pwned").exists() and not Path("pwned").exists()


def test_a_placeholder_used_as_a_key_reads_as_written(tree: WriteTree) -> None:
    # The internal string of `{{_base_.x}}` starts the one of `{{_base_.x_000000_y}}`.
    root = tree(
        {
            "base.yaml": "x: 1\nx_000000_y: 2\n",
            "leaf.yaml": "_base_: ./base.yaml\nv: {{_base_.x}}\na: {{{_base_.x_000000_y}}: 1}\n",
        }
    )
    config = Loader().load(root / "leaf.yaml")
    assert isinstance(config, ResolvedConfig)
    unknown = config.get("a")
    assert isinstance(unknown, UnknownNode)
    assert unknown.source == "{{_base_.x_000000_y}}"
    assert "random string" in unknown.reason
