"""cfglint against MMEngine's own ``Config.fromfile`` on small configs that probe the edges.

Each case is loaded by both (MMEngine in one subprocess for the whole module). When MMEngine
loads a config, cfglint must resolve it with the same top-level keys, every value it resolves
must equal MMEngine's, and the listed keys must be unknown (MMEngine's value depends on code
cfglint does not follow, or is a random placeholder string) or known. When MMEngine refuses a
config, cfglint must refuse it too, with the listed diagnostic.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mmengine_oracle import run_oracle, same

from cfglint.loader import Loader
from cfglint.types import LoadFailure, ResolvedConfig, UnknownNode, UnknownValueError, to_python

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mmengine") is None, reason="needs MMEngine (the dryrun extra)"
)

BASE = "model = dict(type='M', depth=50)\nlr = 0.1\nname = 'abc'\npipeline = [dict(type='Load')]\n"

UNKNOWN_BASE = "import os\nmodel = os.environ.get('UNSET_FOR_TEST') or dict(depth=1)\n"


@dataclass(frozen=True)
class Case:
    config: str  # the text of `config.py` (or of the file named by `name`)
    unknown: tuple[str, ...] = ()  # keys cfglint must leave unknown
    known: tuple[str, ...] = ()  # keys cfglint must resolve (to MMEngine's value)
    refused: str | None = None  # MMEngine stops: cfglint's code for it
    name: str = "config.py"
    files: dict[str, str] = field(default_factory=lambda: {"base.py": BASE})
    # cfglint's key -> the pattern of the random key MMEngine has in its place (unknown here)
    random_keys: dict[str, str] = field(default_factory=dict)


CASES: dict[str, Case] = {
    # `{{_base_.x}}`: a random string while the file runs, the base object once it has run.
    "base var aliases the base object": Case(
        "_base_ = './base.py'\ntrain = dict(pipeline={{_base_.pipeline}})\n"
        "_base_.pipeline.append(dict(type='Pack'))\n",
        known=("train", "pipeline"),
    ),
    "base var takes the base value at the end": Case(
        "_base_ = './base.py'\nx = {{_base_.model}}\n_base_.model.depth = 101\n"
        "y = [{{_base_.lr}}, ({{_base_.name}},)]\n_base_.lr = 5\n",
        known=("x", "y", "model", "lr"),
    ),
    "operations on a base var are on a random string": Case(
        "_base_ = './base.py'\nlr = {{_base_.lr}} * 2\nn = len({{_base_.name}})\n"
        "s = f'{ {{_base_.lr}} }'\nc = {{_base_.pipeline}}[0]\nq = '{{_base_.nothing}}'\n"
        "m = {{_base_.nothing}} + 'x'\n",
        unknown=("lr", "n", "s", "c", "q", "m"),
    ),
    "a base var indexed by a string fails": Case(
        "_base_ = './base.py'\nx = {{_base_.model}}['type']\n", refused="CL905"
    ),
    "a base var inside a base value that is unknown": Case(
        "_base_ = './base.py'\nx = {{_base_.model.depth}}\n",
        unknown=("model", "x"),
        files={"base.py": UNKNOWN_BASE},
    ),
    "a base var inside a base value that is unknown, in YAML": Case(
        "_base_: ./base.py\nx: {{_base_.model.depth}}\n",
        name="config.yaml",
        unknown=("model", "x"),
        files={"base.py": UNKNOWN_BASE},
    ),
    "a base var whose key is gone at the end fails": Case(
        "_base_ = './base.py'\nx = {{_base_.model}}\ndel _base_.model\n", refused="CL905"
    ),
    "a base var stored into the bases stays a random string": Case(
        "_base_ = './base.py'\n_base_.model.extra = {{_base_.lr}}\n", unknown=("model",)
    ),
    # Changes cfglint cannot follow leave no stale value behind.
    "a file function that is called": Case(
        "m = dict(a=1)\ndef f():\n    m['a'] = 9\nf()\nkeep = dict(b=1)\n",
        unknown=("m",),
        known=("keep",),
    ),
    "unbound methods": Case(
        "m = dict(a=1)\ndict.update(m, a=2)\nl = [1]\nlist.append(l, 2)\n", unknown=("m", "l")
    ),
    "setattr on a base dict": Case(
        "_base_ = './base.py'\nsetattr(_base_.model, 'type', 'X')\n",
        unknown=("model",),
        known=("lr",),
    ),
    "a method fetched with getattr, an item of next(iter(...))": Case(
        "m = dict(a=1)\ngetattr(m, 'update')(k=2)\nlst = [dict(a=1)]\nnext(iter(lst))['a'] = 2\n",
        unknown=("m", "lst"),
    ),
    "a call under an unknown condition": Case(
        "import os\nmodel = dict(a=1)\ndef helper(x):\n    x['a'] = 3\n"
        "if os.environ.get('A'):\n    helper(model)\nother = dict(b=1)\n",
        unknown=("model",),
        known=("other",),
    ),
    "a try body that runs through": Case(
        "_base_ = './base.py'\ntry:\n    p = _base_.pipeline\n    p += [dict(type='Pack')]\n"
        "except Exception:\n    pass\n",
        known=("pipeline", "p"),
    ),
    "a try body with a step that may raise": Case(
        "_base_ = './base.py'\nimport os\ntry:\n    p = _base_.pipeline\n"
        "    x = os.environ.get('HOME')\n    p += [dict(type='Pack')]\nexcept KeyError:\n    pass\n"
        "q = 1\n",
        unknown=("pipeline", "p", "x"),
        known=("q", "model"),
    ),
    "a break that may or may not run": Case(
        "import os\nacc = []\nfor i in range(3):\n    acc.append(i)\n"
        "    if os.environ.get('STOP'):\n        break\ntotal = dict(n=len(acc))\n",
        unknown=("acc", "i", "total"),
    ),
    "a lambda called through a dict": Case(
        "m = dict(a=1)\ng = lambda: m.update(a=2)\nd = dict(f=g)\nd['f']()\nkeep = dict(z=1)\n",
        unknown=("m", "d"),
        known=("keep",),
    ),
    "updates with unknown data": Case(
        "import os\nm = dict(a=1)\nm.update(os.environ)\nn = [1]\n"
        "n.extend(os.environ.get('X', []))\n",
        unknown=("m", "n"),
    ),
    "a function that rebinds a global and changes a nested dict": Case(
        "m = dict(a=dict(b=1))\ninner = m['a']\ndef f():\n    global g\n    g = 5\n"
        "    m['a']['b'] = 2\nf()\n",
        unknown=("m", "inner", "g"),
    ),
    "a class body and a sort key that change data": Case(
        "m = dict(a=1)\nclass C:\n    m['a'] = 2\nx = [1, 2]\n"
        "y = sorted(x, key=lambda v: m.update(c=v) or v)\n",
        unknown=("m", "y", "C"),
        known=("x",),
    ),
    "a default argument that is module data": Case(
        "m = dict(a=1)\ndef f(d=m):\n    d['a'] = 5\nr = f()\n", unknown=("m", "r")
    ),
    "a dunder method of a dict": Case("m = dict(a=1)\nm.__setitem__('a', 5)\n", unknown=("m",)),
    # Module-level names MMEngine keeps: everything but modules and Python functions.
    "names bound from imports": Case(
        "import sys\nplat = sys.platform\nu = sys.version_info.major\n"
        "from os.path import join\nfrom collections import OrderedDict\nimport math\n"
        "sq = math.sqrt\nfrom math import sqrt, pi\nimport os.path as osp\np = osp\n"
        "from copy import deepcopy\nfrom mmengine.config import Config, read_base\n",
        unknown=("plat", "u", "OrderedDict", "sq", "sqrt", "Config"),
        known=("pi",),
    ),
    "an import in a try": Case(
        "try:\n    import math\nexcept ImportError:\n    pass\nv = math.sqrt(4)\n", known=("v",)
    ),
    "attribute access on a plain dict fails": Case("m = dict(a=1)\nx = m.a\n", refused="CL905"),
    "a plain dict made from a base dict": Case(
        "_base_ = './base.py'\nd = dict(**_base_.model)\nt = d.type\n", refused="CL905"
    ),
    "to_dict gives a plain dict": Case(
        "_base_ = './base.py'\nm = _base_.model.to_dict()\nt = m.type\n", refused="CL905"
    ),
    "deepcopy keeps what the value shares": Case(
        "import copy\na = dict(x=1)\nc = copy.deepcopy([a, a])\nc[0]['x'] = 2\n",
        known=("a", "c"),
    ),
    "deepcopy of a ConfigDict rebuilds the lists under it": Case(
        "_base_ = './base.py'\nimport copy\nm = _base_.model\ninner = [1]\nm.x = [inner]\n"
        "m.x.append(m.x[0])\nd = copy.deepcopy(m)\nd.x[0].append(2)\nm.x[0].append(3)\n"
        "p = dict(k=[1])\nm.y = [p, p]\nm.y[0].k.append(2)\n",
        known=("m", "inner", "d", "model", "p"),
    ),
    "copy keeps a ConfigDict": Case(
        "_base_ = './base.py'\nm = _base_.model.copy()\nt = m.type\nd = dict(_base_.model)\n",
        known=("m", "t", "d"),
    ),
    # Smaller fidelity points.
    "a failing assert": Case("a = 1\nassert a == 2\n", refused="CL905"),
    "an assert that holds": Case("a = 2\nassert a == 2\n", known=("a",)),
    "an unset placeholder in a comment": Case("# {{$UNSET_FOR_TEST:}}\nx = 1\n", refused="CL905"),
    "a placeholder without a colon stays text": Case(
        "# {{$UNSET_FOR_TEST}}\nx = '{{$UNSET_FOR_TEST}}'\n", known=("x",)
    ),
    "a bare placeholder without a colon is a set of sets": Case(
        "x = {{'$UNSET_FOR_TEST'}}\n", refused="CL905"
    ),
    "keyword names must be strings": Case("d = dict(**{1: 2})\n", refused="CL905"),
    "walrus in a comprehension binds a module name": Case(
        "l = [(y := i) for i in range(3)]\n", known=("y", "l")
    ),
    "raise": Case("raise ValueError('no')\n", refused="CL905"),
    # A `try` stops nothing its handlers cannot catch: `finally` runs, and MMEngine stops.
    "a raise in a try with only finally": Case(
        "try:\n    raise ValueError('x')\nfinally:\n    pass\nb = 2\n", refused="CL905"
    ),
    "a failing assert in a try with only finally": Case(
        "try:\n    assert False\nfinally:\n    a = 3\n", refused="CL905"
    ),
    "a handler for another exception": Case(
        "try:\n    x = [][1]\nexcept (KeyError, ZeroDivisionError):\n    pass\n", refused="CL905"
    ),
    "a failing else of a try": Case(
        "try:\n    pass\nexcept KeyError:\n    pass\nelse:\n    assert 0\nfinally:\n    w = 1\n",
        refused="CL905",
    ),
    "a handler that catches a base class": Case(
        "try:\n    x = [][1]\nexcept LookupError:\n    y = 1\nz = 2\n",
        known=("y", "z"),
    ),
    "a handler of a kind cfglint does not follow first: it may catch": Case(
        "Missing = KeyError\ntry:\n    x = [][1]\nexcept Missing:\n    y = 1\n"
        "except LookupError:\n    y = 2\nz = 2\n",
        unknown=("y",),
        known=("z",),
    ),
    "the exception's name is unbound after the handler": Case(
        "try:\n    x = {}['k']\nexcept KeyError as error:\n    y = 1\nz = 2\n",
        known=("y", "z"),
    ),
    "a break in finally drops the exception": Case(
        "for i in range(2):\n    try:\n        raise ValueError('x')\n    finally:\n        break\n"
        "z = 2\n",
        known=("i", "z"),
    ),
    "builtin exception classes are names": Case(
        "e = ValueError\nok = isinstance(KeyError(), LookupError)\nn = isinstance(1, OSError)\n",
        unknown=("e", "ok"),
        known=("n",),
    ),
    "a shallow copy of a list changed by an unknown call": Case(
        "import random, copy\nl = [1, 2, 3]\nrandom.shuffle(l)\nm = copy.copy(l)\nn = list(l)\n",
        unknown=("l", "m", "n"),
    ),
    "a negative index past the start": Case("x = [1, 2, 3][-5]\n", refused="CL905"),
    "a negative pop past the start": Case("l = [1, 2, 3]\ny = l.pop(-5)\n", refused="CL905"),
    "negative indices in range": Case(
        "l = [1, 2, 3]\ny = l.pop(-3)\nz = l[-2]\n", known=("l", "y", "z")
    ),
    "environment placeholders take their default": Case(
        "data_root = '{{$DATA_FOR_TEST:/data}}' + '/coco'\n"
        "env_cfg = dict(dist_cfg=dict(backend='{{$BK_FOR_TEST:nccl}}'))\n"
        "n = {{'$N_FOR_TEST:80'}}\nf = f'{{$F_FOR_TEST:x}}'\n",
        known=("data_root", "env_cfg", "n"),
        unknown=("f",),
    ),
    # MMEngine's substitution works on the text with regular expressions: the default is one,
    # the value a replacement template.
    "an environment default that is a bad template": Case(
        "x = r'{{$FOO_FOR_TEST:C:\\data}}'\n", refused="CL905"
    ),
    "an environment default that is a bad template, in YAML": Case(
        "x: '{{$FOO_FOR_TEST:C:\\data}}'\n", name="config.yaml", refused="CL905"
    ),
    "an environment default that does not match itself stays text": Case(
        "x = '{{$FOO_FOR_TEST:a+}}'\ny = '{{$FOO_FOR_TEST:a.b}}'\n", known=("x", "y")
    ),
    "an environment default that does not match itself stays text, in YAML": Case(
        "x: '{{$FOO_FOR_TEST:a+}}'\n", name="config.yaml", known=("x",)
    ),
    "placeholders in the source text of a literal": Case(
        "x = ('{{$A_FOR_TEST:a}}'  # c {{$B_FOR_TEST:b}}\n     'c')\n"
        "w = r'\\x{{$A_FOR_TEST:a}}'\nu = '\\x7b\\x7b$A_FOR_TEST:a}}'\n",
        known=("x", "w", "u"),
    ),
    "a string computed with braces is not substituted": Case(
        "b = '{'\nx = f'{b}{b}$X_FOR_TEST:1}}}}'\ny = b + b + '$X_FOR_TEST:1}}'\n",
        known=("b", "x", "y"),
    ),
    "a lazy-import script substitutes nothing": Case(
        "import numpy as np\nx = '{{$X_FOR_TEST:1}}'\ny = '{{ fileBasename }}'\n"
        "# {{$UNSET_FOR_TEST:}}\n",
        known=("x", "y"),
    ),
    # Lazy-import configs (the common forms: test_lazy_oracle.py): code MMEngine runs and
    # cfglint does not, and what MMEngine refuses.
    "a lazy config's class, function and call are kept unknown": Case(
        "from mmengine.config import read_base\nwith read_base():\n    from .base import *\n"
        "from mmdet.models import ResNet\nclass MyHook:\n    priority = 'LOW'\n"
        "custom_hooks = [dict(type=MyHook)]\nmodel = dict(type=ResNet, depth=50)\n"
        "def scale(x):\n    return x * 2\nlr = scale(0.01)\n",
        unknown=("MyHook", "custom_hooks", "scale", "lr"),
        known=("model", "name", "pipeline"),
    ),
    "a lazy config's `_base_` after `read_base()` is a key": Case(
        "from mmengine.config import read_base\nwith read_base():\n    from .base import lr\n"
        "_base_ = './base.py'\nx = lr\n",
        known=("_base_", "x"),
    ),
    "a lazy config's `_base_` before `read_base()`": Case(
        "import numpy as np\nfrom mmengine.config import read_base\n_base_ = './base.py'\n"
        "with read_base():\n    from .base import *\n",
        refused="CL905",
    ),
    "a name a lazy base does not define": Case(
        "from mmengine.config import read_base\nwith read_base():\n    from .base import nothing\n",
        refused="CL905",
    ),
    "a lazy base module that does not exist": Case(
        "from mmengine.config import read_base\nwith read_base():\n    from .nothing import *\n",
        refused="CL903",
    ),
    "a lazy import called": Case(
        "from torch.optim import SGD\noptimizer = SGD(lr=0.1)\n", refused="CL905"
    ),
    "a star import of a package in a lazy config": Case(
        "from mmengine.config import read_base\nwith read_base():\n    from .base import *\n"
        "from torch.nn import *\n",
        refused="CL905",
    ),
    "two modules on one import line in a lazy config": Case(
        "import torch, numpy\nx = 1\n", refused="CL905"
    ),
    # YAML: PyYAML's full loader, YAML 1.1.
    "yaml scalars, tags and placeholders": Case(
        "_base_: ./base.py\na: off\nb: no\nc: 1e3\nd: 017\ne: 0o17\nf: !!python/tuple [1, 2]\n"
        "g: 1:20\nh: 0x1F\ni: ~\nj: 1_000\nk: .inf\nl: 'quoted'\nm: \"dq \\u00e9\"\n"
        "n: |\n  block\n  text\no: >\n  folded\n  text\np: [0, 1]\nq: {x: 1, y: [a, b]}\n"
        "r: !!binary aGVsbG8=\ns: !!str 123\nt: !!float 1\nu: 2001-12-14\n"
        "v: !!python/object/apply:builtins.len [[1, 2]]\nw: !!python/str x\n"
        "model: {depth: 101}\nx: {{_base_.model}}\ny: '{{_base_.lr}}'\nz: [{{_base_.lr}}, 3]\n"
        "env: '{{$DATA_FOR_TEST:/data}}/coco'\nwd: '{{ fileBasenameNoExtension }}'\n",
        name="config.yaml",
        unknown=("u", "v", "w", "y"),
        known=(*"abcdefghijklmnopqrstxz", "model", "env", "wd", "lr"),
    ),
    "yaml anchors and merge keys": Case(
        "b: &B {backend: nccl, x: 1}\nenv_cfg:\n  dist_cfg:\n    <<: *B\n    x: 2\n"
        "c: {<<: [*B, {y: 3}], z: 1}\nd: &D\n  - 1\n  - 2\ne: *D\n",
        name="config.yaml",
        known=("b", "env_cfg", "c", "d", "e"),
    ),
    # Checked by itself, a file that is not a mapping is a data file, skipped with the CL907
    # warning (as a `_base_` it is CL902: tests/integrations/test_skipped.py).
    "an empty yaml file": Case("", name="config.yaml", refused="CL907"),
    "a yaml list": Case("- 1\n- 2\n", name="config.yaml", refused="CL907"),
    "an unknown yaml tag": Case("a: !foo bar\n", name="config.yaml", refused="CL901"),
    "invalid yaml": Case("a: [1, 2\n", name="config.yaml", refused="CL901"),
    "an unhashable yaml key": Case("? [1, 2]\n: x\n", name="config.yaml", refused="CL901"),
    "a non-string top-level key": Case("1: a\n", name="config.yaml", refused="CL905"),
    "a recursive yaml alias": Case("a: &a [*a]\n", name="config.yaml", refused="CL901"),
    # JSON: json.load.
    "json constants, duplicates, surrogates and base vars": Case(
        '{"_base_": "./base.py", "name": "\\ud83d\\ude00", "lone": "\\ud83d", "x": NaN, '
        '"y": Infinity, "a": 1, "a": 2, "m": {{_base_.model}}, "e": "{{$E_FOR_TEST:def}}", '
        '"big": 1e400, "n": [1, 2.5, -3e2, true, false, null]}\n',
        name="config.json",
        known=("name", "lone", "x", "y", "a", "m", "e", "big", "n", "lr"),
    ),
    "a base var as a top-level key": Case(
        "_base_: ./base.py\n{{_base_.lr}}: 5\nx: {{_base_.lr}}\n",
        name="config.yaml",
        known=("x", "lr"),
        random_keys={"{{_base_.lr}}": r"_lr_[0-9a-f]{6}"},
    ),
    "a base var as a top-level key in JSON": Case(
        '{"_base_": "./base.py", {{_base_.name}}: [1]}\n',
        name="config.json",
        known=("name",),
        random_keys={"{{_base_.name}}": r"_name_[0-9a-f]{6}"},
    ),
    "invalid json": Case('{"a": 1,}', name="config.json", refused="CL901"),
    "a json list": Case("[1, 2]", name="config.json", refused="CL907"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[object, object]]:
    root = tmp_path_factory.mktemp("against_mmengine")
    paths: dict[str, Path] = {}
    for number, (title, case) in enumerate(CASES.items()):
        folder = root / f"case{number}"
        folder.mkdir()
        for name, text in case.files.items():
            (folder / name).write_text(text, encoding="utf-8")
        (folder / case.name).write_text(case.config, encoding="utf-8")
        paths[title] = folder / case.name
    # No environment variable leaks into a placeholder; a config that writes files when it
    # runs writes them in `root`.
    theirs = {
        Path(path): result
        for path, result in run_oracle(
            list(paths.values()), {"PATH": "/usr/bin:/bin"}, cwd=root, stdlib_is_builtin=True
        ).items()
    }
    loader = Loader()
    return {title: (loader.load(path), theirs[path]) for title, path in paths.items()}


@pytest.mark.parametrize("title", list(CASES))
def test_cfglint_agrees_with_mmengine(title: str, loaded: dict[str, tuple[object, object]]) -> None:
    case = CASES[title]
    ours, (status, theirs) = loaded[title]
    if case.refused is not None:
        assert status == "error", f"MMEngine loads it: {theirs!r}"
        assert isinstance(ours, LoadFailure), f"cfglint resolves it; MMEngine: {theirs}"
        assert ours.problems[0].code == case.refused, ours.problems
        return
    assert status == "ok", theirs
    assert isinstance(ours, ResolvedConfig), ours
    assert isinstance(theirs, dict)
    mine_keys, their_keys = list(ours.root.entries), list(theirs)
    assert len(mine_keys) == len(their_keys), (mine_keys, their_keys)
    for mine_key, their_key in zip(mine_keys, their_keys, strict=True):
        if mine_key in case.random_keys:
            assert isinstance(their_key, str), their_key
            assert re.fullmatch(case.random_keys[mine_key], their_key), (mine_key, their_key)
            assert isinstance(ours.root.entries[mine_key], UnknownNode)
        else:
            assert mine_key == their_key, (mine_keys, their_keys)
    unknown: set[object] = set()
    for key, node in ours.root.entries.items():
        if key in case.random_keys:
            continue
        try:
            mine = to_python(node)
        except UnknownValueError:
            unknown.add(key)
            continue
        assert same(mine, theirs[key]), (key, mine, theirs[key])
    guessed = set(case.unknown) - unknown
    assert not guessed, f"resolved, but MMEngine's value cannot be known statically: {guessed}"
    assert not set(case.known) & unknown, f"left unknown: {set(case.known) & unknown}"
