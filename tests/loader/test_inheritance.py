"""`_base_` inheritance, merging and provenance (origins and chains)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from cfglint import session
from cfglint.loader import Loader
from cfglint.types import (
    DictNode,
    ResolvedConfig,
    ScalarNode,
    SequenceNode,
    to_python,
)

WriteTree = Callable[[dict[str, str | bytes]], Path]


def resolve(path: Path, environ: dict[str, str] | None = None) -> ResolvedConfig:
    result = Loader(environ=environ or {}).load(path)
    assert isinstance(result, ResolvedConfig), result
    return result


def plain(config: ResolvedConfig) -> dict[object, object]:
    return {key: to_python(node) for key, node in config.root.entries.items()}


def test_leaf_override_wins_and_origin_says_so(tree: WriteTree) -> None:
    root = tree(
        {
            "_base_/runtime.py": "env_cfg = dict(\n    cudnn_benchmark=True,\n"
            "    dist_cfg=dict(backend='nccl'),\n)\nlog_level = 'INFO'\n",
            "exp/leaf.py": "_base_ = '../_base_/runtime.py'\n"
            "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
        }
    )
    leaf = root / "exp/leaf.py"
    config = resolve(leaf)
    assert plain(config) == {
        "env_cfg": {"cudnn_benchmark": True, "dist_cfg": {"backend": "gloo"}},
        "log_level": "INFO",
    }
    backend = config.get("env_cfg.dist_cfg.backend")
    assert isinstance(backend, ScalarNode)
    assert backend.origin.span.path == leaf
    assert (backend.origin.span.line, backend.origin.span.column) == (2, 38)
    assert backend.origin.span.end_column == 44
    assert backend.origin.chain == (leaf,)
    # Entries the leaf did not write keep the base's origin and the chain to it.
    cudnn = config.get("env_cfg.cudnn_benchmark")
    assert cudnn is not None
    base = root / "_base_/runtime.py"
    assert cudnn.origin.span.path == base
    assert cudnn.origin.span.line == 2
    assert cudnn.origin.chain == (leaf, base)
    # A merged dict has the origin of the last writer, spanning its dict expression.
    env_cfg = config.get("env_cfg")
    assert isinstance(env_cfg, DictNode)
    span = env_cfg.origin.span
    assert (span.path, span.line, span.column, span.end_line, span.end_column) == (
        leaf,
        2,
        11,
        2,
        46,
    )
    assert config.files == (leaf, base)


def test_base_list_relative_paths_and_multi_level_chain(tree: WriteTree) -> None:
    root = tree(
        {
            "configs/_base_/a.py": "a = 1\nshared = dict(x=1, y=2)\n",
            "configs/_base_/b.py": "_base_ = './a.py'\nshared = dict(y=3)\n",
            "configs/_base_/c.py": "c = [1, 2]\n",
            "configs/m/leaf.py": "_base_ = ['../_base_/b.py', '../_base_/c.py']\nc = (3,)\n",
        }
    )
    leaf = root / "configs/m/leaf.py"
    config = resolve(leaf)
    assert plain(config) == {"a": 1, "shared": {"x": 1, "y": 3}, "c": (3,)}
    x = config.get("shared.x")
    assert x is not None
    assert x.origin.chain == (leaf, root / "configs/_base_/b.py", root / "configs/_base_/a.py")
    assert [p.name for p in config.files] == ["leaf.py", "b.py", "a.py", "c.py"]


def test_delete_replaces_and_is_kept_when_base_lacks_the_key(tree: WriteTree) -> None:
    root = tree(
        {
            "base.py": "optim = dict(type='SGD', lr=0.1, momentum=0.9)\n",
            "leaf.py": "_base_ = './base.py'\noptim = dict(_delete_=True, type='AdamW', lr=1e-3)\n"
            "extra = dict(_delete_=True, a=1)\n",
        }
    )
    assert plain(resolve(root / "leaf.py")) == {
        "optim": {"type": "AdamW", "lr": 1e-3},
        "extra": {"_delete_": True, "a": 1},
    }


def test_base_references_and_substitution(tree: WriteTree) -> None:
    root = tree(
        {
            "base.py": "backend_args = None\nmodel = dict(depth=50, neck=dict(out=256))\n"
            "train_pipeline = [dict(type='Load'), dict(type='Resize', scale=(1, 2))]\n",
            "leaf.py": "_base_ = './base.py'\n"
            "pipe = [dict(type='X', backend_args={{_base_.backend_args}})]\n"
            "depth = _base_.model.depth * 2\n"
            "neck = _base_['model']['neck']\n"
            "train_pipeline = _base_.train_pipeline + [dict(type='Pack')]\n"
            "model = _base_.model\n"
            "model.neck.out = 512\n",
        }
    )
    leaf = root / "leaf.py"
    config = resolve(leaf)
    assert plain(config)["pipe"] == [{"type": "X", "backend_args": None}]
    assert plain(config)["depth"] == 100
    assert plain(config)["neck"] == {"out": 512}  # same object as model.neck, as in Python
    assert plain(config)["model"] == {"depth": 50, "neck": {"out": 512}}
    pipeline = config.get("train_pipeline")
    assert isinstance(pipeline, SequenceNode)
    first, last = pipeline.items[0], pipeline.items[2]
    assert first.origin.span.path == root / "base.py"
    assert first.origin.chain == (leaf, root / "base.py")
    assert last.origin.span.path == leaf


def test_predefined_and_environment_placeholders(tree: WriteTree) -> None:
    root = tree(
        {
            "cfgs/leaf.py": "work_dir = './work_dirs/{{ fileBasenameNoExtension }}'\n"
            "where = '{{fileDirname}}'\n"
            "data_root = '{{$DATA_ROOT:/data/coco}}/images'\n"
            "classes = {{'$NUM_CLASSES:80'}}\n"
            "backend = '{{$BACKEND:nccl}}'\n",
        }
    )
    leaf = root / "cfgs/leaf.py"
    config = resolve(leaf, environ={"BACKEND": "gloo"})
    assert plain(config) == {
        "work_dir": "./work_dirs/leaf",
        "where": str(root / "cfgs"),
        "data_root": "/data/coco/images",
        "classes": 80,
        "backend": "gloo",
    }
    for key in ("data_root", "classes", "backend"):
        node = config.get(key)
        assert node is not None and node.origin.env_dependent, key
    work_dir = config.get("work_dir")
    assert work_dir is not None and not work_dir.origin.env_dependent


def test_module_level_names_mmengine_keeps(tree: WriteTree) -> None:
    root = tree(
        {
            "leaf.py": "import os\nimport copy\nfrom math import pi\nimport os.path as osp\n"
            "def helper():\n    return 1\n"
            "__private = 3\n_single = 4\nvalue = helper\nlam = lambda x: x\nangle = pi\n",
        }
    )
    config = resolve(root / "leaf.py")
    assert set(config.root.entries) == {"_single", "angle", "pi"}  # a float import stays


def test_pure_data_operations(tree: WriteTree) -> None:
    source = """\
import copy
lr = 0.01 * 8 / 4
name = f"r{50}-{'x'.upper()}"
pct = '%d-%s' % (3, 'a')
fmt = '{}_{}'.format('a', 2)
squares = [i * i for i in range(4) if i]
table = {k: v for k, v in zip(['a', 'b'], (1, 2))}
pairs = list(enumerate(['x', 'y'], start=1))
base = dict(a=1, b=dict(c=2))
merged = dict(**base, d=3)
literal = {**base, 'e': 4}
copy_ = copy.deepcopy(base)
copy_['b']['c'] = 99
base.update(a=10)
popped = base.pop('a')
got = base.get('missing', 'default')
items = sorted(base.keys())
nums = [3, 1, 2]
nums += [4]
nums.append(5)
nums.extend((6,))
del nums[0]
sliced = nums[1:3]
total = sum(nums) + len(nums) + max(nums) + min(nums) + round(2.6)
check = isinstance(nums, (list, tuple))
if total > 10:
    big = True
else:
    big = False
acc = []
for i in range(3):
    acc.append(i)
t = tuple(acc)
neg = -abs(-3)
cond = 'yes' if check and not big else 'no'
"""
    root = tree({"leaf.py": source})
    config = plain(resolve(root / "leaf.py"))
    namespace: dict[str, object] = {}
    exec(compile(source, "leaf.py", "exec"), namespace)
    expected = {
        key: value for key, value in namespace.items() if not key.startswith("__") and key != "copy"
    }
    assert config == expected
    assert config["i"] == 2  # a module-level loop variable stays, as in MMEngine


def test_loop_control_flow(tree: WriteTree) -> None:
    source = """\
found = None
for i in range(10):
    if i == 2:
        continue
    if i * i > 10:
        found = i
        break
else:
    found = 'never'
seen = []
for j in (1, 2):
    seen.append(j)
else:
    seen.append('done')
n = 0
while n < 100:
    n += 7
    if n % 5 == 0:
        break
else:
    n = -1
k = 0
while k < 3:
    k += 1
    if k == 2:
        continue
    seen.append(k)
else:
    seen.append('while-done')
"""
    root = tree({"leaf.py": source})
    namespace: dict[str, object] = {}
    exec(compile(source, "leaf.py", "exec"), namespace)
    expected = {key: value for key, value in namespace.items() if not key.startswith("__")}
    assert plain(resolve(root / "leaf.py")) == expected
    assert expected["found"] == 4 and expected["n"] == 35


def test_unknown_at_exactly_that_place(tree: WriteTree) -> None:
    root = tree(
        {
            "leaf.py": "import os\n"
            "env_cfg = dict(dist_cfg=dict(backend=os.environ['BACKEND']), cudnn_benchmark=False)\n"
            "x = os.getcwd() + '/a'\n"
            "y = dict(path=x)\n",
        }
    )
    config = resolve(root / "leaf.py")
    backend = config.get("env_cfg.dist_cfg.backend")
    from cfglint.types import UnknownNode

    assert isinstance(backend, UnknownNode)
    assert backend.source == "os.environ['BACKEND']"
    assert (backend.origin.span.line, backend.origin.span.column) == (2, 38)
    assert to_python(config.get("env_cfg.cudnn_benchmark")) is False  # type: ignore[arg-type]
    path = config.get("y.path")
    assert isinstance(path, UnknownNode) and path.source == "os.getcwd() + '/a'"


def test_side_effects_are_never_executed(tree: WriteTree) -> None:
    root = tree(
        {
            "leaf.py": "open('written.txt', 'w').write('x')\n"
            "import os\nos.makedirs('made_dir')\nmodel = dict(type='M')\n",
        }
    )
    config = resolve(root / "leaf.py")
    assert plain(config) == {"model": {"type": "M"}}
    assert not (root / "written.txt").exists()
    assert not (root / "made_dir").exists()


def test_unknown_call_poisons_data_it_could_change(tree: WriteTree) -> None:
    root = tree({"leaf.py": "import os\nmodel = dict(a=1)\nos.fix_up(model)\nother = dict(b=2)\n"})
    config = resolve(root / "leaf.py")
    from cfglint.types import UnknownNode

    assert isinstance(config.get("model"), UnknownNode)
    assert to_python(config.get("other")) == {"b": 2}  # type: ignore[arg-type]


def test_character_columns_after_non_ascii_text(tree: WriteTree) -> None:
    root = tree({"leaf.py": "x = dict(名前='值', backend='nccl')\n"})
    config = resolve(root / "leaf.py")
    backend = config.get("x.backend")
    assert backend is not None
    assert (backend.origin.span.column, backend.origin.span.end_column) == (26, 32)


def test_yaml_and_json_configs_with_bases(tree: WriteTree) -> None:
    root = tree(
        {
            "base.py": "model = dict(type='M', depth=50)\nlr = 0.1\n",
            "mid.yaml": "_base_: ./base.py\nmodel:\n  depth: 101\n",
            "leaf.json": '{\n  "_base_": ["./mid.yaml"],\n  "lr": 0.02\n}\n',
        }
    )
    leaf = root / "leaf.json"
    config = resolve(leaf)
    assert plain(config) == {"model": {"type": "M", "depth": 101}, "lr": 0.02}
    depth = config.get("model.depth")
    assert depth is not None
    assert depth.origin.span.path == root / "mid.yaml"
    assert (depth.origin.span.line, depth.origin.span.column) == (3, 10)
    assert depth.origin.chain == (leaf, root / "mid.yaml")
    lr = config.get("lr")
    assert lr is not None and (lr.origin.span.line, lr.origin.span.column) == (3, 9)


def test_package_bases_found_without_importing(
    tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(
        {
            "site/mmdet/__init__.py": "raise RuntimeError('must not be imported')\n",
            "site/mmdet/.mim/configs/_base_/rt.py": "model = dict(type='RetinaNet')\n"
            "log_level = 'INFO'\n",
            "leaf.py": "_base_ = 'mmdet::_base_/rt.py'\n",
        }
    )
    monkeypatch.syspath_prepend(str(root / "site"))
    with session.command():  # where packages are installed is asked afresh
        config = resolve(root / "leaf.py")
    # MMEngine adds the package scope to the outermost dicts with a `type`.
    assert plain(config) == {
        "model": {"type": "RetinaNet", "_scope_": "mmdet"},
        "log_level": "INFO",
    }


def test_shared_bases_are_parsed_once(tree: WriteTree, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(
        {
            "base.py": "x = 1\n",
            "a.py": "_base_ = './base.py'\n",
            "b.py": "_base_ = './base.py'\ny = 2\n",
        }
    )
    parsed: list[str] = []
    real_parse = ast.parse

    def counting_parse(
        source: str, filename: str = "<unknown>", *args: object, **kw: object
    ) -> ast.Module:
        parsed.append(Path(filename).name)
        return real_parse(source, filename)

    monkeypatch.setattr(ast, "parse", counting_parse)
    loader = Loader(environ={})
    first, second = loader.load(root / "a.py"), loader.load(root / "b.py")
    assert isinstance(first, ResolvedConfig) and isinstance(second, ResolvedConfig)
    assert sorted(parsed) == ["a.py", "b.py", "base.py"]
    x = second.get("x")
    assert x is not None and x.origin.chain == (root / "b.py", root / "base.py")


def test_paths_are_absolute_and_normalised(
    tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree({"d/leaf.py": "a = 1\n"})
    monkeypatch.chdir(root)
    config = resolve(Path("d/../d/leaf.py"))
    assert config.path == root / "d/leaf.py"


def test_dotted_keys_reach_list_items_and_int_keys(tree: WriteTree) -> None:
    from cfglint.rules.keys import Absent, Present, Unknown, key_state

    root = tree(
        {
            "c.py": "import os\npipeline = [dict(type='Load'), dict(type='Pack')]\n"
            "by_id = {3: 'x', -1: 'y'}\nmodel = dict(neck=os.getcwd(), depth=50)\n"
        }
    )
    config = resolve(root / "c.py")
    found = config.get("pipeline.1.type")
    assert isinstance(found, ScalarNode) and found.value == "Pack"
    assert config.get("pipeline.2.type") is None
    assert config.get("pipeline.x") is None
    by_id = (config.get("by_id.3"), config.get("by_id.-1"))
    assert [getattr(node, "value", None) for node in by_id] == ["x", "y"]
    assert config.get("model.neck.out") is None  # inside an unknown value
    # What the rules see: the deepest dict on the way, an unknown on the way.
    model = config.get("model")
    assert isinstance(model, DictNode)
    assert key_state(config.root, "model.backbone") == Absent(model)
    assert key_state(config.root, "model.depth.x") == Absent(model)
    assert isinstance(key_state(config.root, "model.neck.out"), Unknown)
    assert isinstance(key_state(config.root, "pipeline.0.type"), Present)


def test_a_merged_dict_and_a_base_dict_reached_through_a_config_answer_get_as_indexing(
    tree: WriteTree,
) -> None:
    root = tree(
        {
            "_base_/runtime.py": "env_cfg = dict(\n    cudnn_benchmark=True,\n"
            "    dist_cfg=dict(backend='nccl'),\n)\nmodel = dict(type='M', head=dict(num=1))\n",
            "exp/leaf.py": "_base_ = '../_base_/runtime.py'\n"
            "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n",
        }
    )
    leaf = root / "exp/leaf.py"
    base = root / "_base_/runtime.py"
    config = resolve(leaf)
    kinds = set()
    missing = object()

    def agree(node: DictNode) -> None:
        entries = node.entries
        kinds.add(type(entries).__name__)
        for key in [*entries, "absent", 3]:
            try:
                expected: object = entries[key]
            except KeyError:
                assert entries.get(key) is None
                assert entries.get(key, missing) is missing
                continue
            assert entries.get(key) == expected
            assert entries.get(key, missing) == expected
            if isinstance(expected, DictNode):
                agree(expected)

    agree(config.root)
    # A merged dict (the leaf's env_cfg over the base's) and a base's dict seen through the
    # leaf (its model, which the leaf leaves alone) are both covered.
    assert {"OverlayEntries", "RebasedEntries"} <= kinds
    env_cfg = config.root.entries.get("env_cfg")
    assert isinstance(env_cfg, DictNode)
    backend = env_cfg.entries.get("dist_cfg")
    assert isinstance(backend, DictNode)
    cudnn = env_cfg.entries.get("cudnn_benchmark")
    assert cudnn is not None and cudnn.origin.chain == (leaf, base)
