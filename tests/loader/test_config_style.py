"""Plain, lazy-import or refused: the style cfglint gives a `.py` config is the one MMEngine's own
`Config._is_lazy_import` gives it, whatever the nesting puts first in its breadth-first walk."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from cfglint.loader.pyfile import config_style

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mmengine") is None, reason="needs MMEngine (the dryrun extra)"
)

SOURCES = {
    "plain base list": "_base_ = ['a.py']\nmodel = dict(type='X')\n",
    "no import, no with": "model = dict(with_cp=True)\n",
    "the word with in a string": "note = 'trained with 8 GPUs'\nmodel = dict()\n",
    # A module built into the interpreter: MMEngine asks the import system where any other
    # stdlib module lives, and in a virtualenv finds it outside the environment (cfglint
    # decides from the name alone).
    "built-in module import": "import sys\nmodel = dict(version=sys.version)\n",
    "read_base": "from mmengine.config import read_base\nwith read_base():\n    from .a import *\n",
    "another context manager": "with open('x') as handle:\n    pass\n",
    "relative import": "from . import a\n",
    "mmengine Config only": "from mmengine import Config\nmodel = dict()\n",
    "non-stdlib import first, _base_ later": "import numpy\n_base_ = ['a.py']\n",
    "_base_ first, non-stdlib import later": "_base_ = ['a.py']\nimport numpy\n",
    # Breadth first: a top-level `_base_` comes before an import nested one level down.
    "nested import, top-level _base_ after it": (
        "if True:\n    import numpy\n_base_ = ['a.py']\n"
    ),
    "nested _base_, top-level import after it": (
        "if True:\n    _base_ = ['a.py']\nimport numpy\n"
    ),
    "import in an except handler": (
        "try:\n    pass\nexcept Exception:\n    from mmdet import models\n"
    ),
    "with in an except handler, deeper than _base_": (
        "try:\n    x = 1\nexcept Exception:\n    with open('x'):\n        pass\n"
        "for i in range(1):\n    _base_ = [i]\n"
    ),
    "with in a match case": (
        "a = 1\nmatch a:\n    case 1:\n        with read_base():\n            from .x import *\n"
    ),
    "import inside a function, lambda in a value": (
        "f = dict(key=lambda: 3)\ndef build():\n    import numpy\n"
    ),
    "_base_ inside a class body": "class Holder:\n    _base_ = ['a.py']\n",
    "deep expressions before a nested import": (
        "model = dict(a=[dict(b=[dict(c=(1, 2, {'d': [3]}))])])\n"
        "while False:\n    from mmseg import x\n"
    ),
}


@pytest.mark.parametrize("name", list(SOURCES))
def test_the_style_is_mmengines(name: str, tmp_path: Path) -> None:
    from mmengine.config import Config
    from mmengine.config.utils import ConfigParsingError

    path = tmp_path / "config.py"
    path.write_text(SOURCES[name])
    try:
        expected = "lazy" if Config._is_lazy_import(str(path)) else "plain"
    except ConfigParsingError:
        expected = "bad-with"
    assert config_style(ast.parse(SOURCES[name]), SOURCES[name]) == expected
