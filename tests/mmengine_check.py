"""Run MMEngine's own ``Config.fromfile`` on small test configs, in one subprocess.

MMEngine decides whether a config is a "lazy import" one by asking where each imported module
lives; in a virtual environment it mistakes the standard library for third-party code. The
runner answers from the module's name instead, as a normal installation would (and as cfglint
does), so that ``import os`` keeps a config on MMEngine's ordinary path.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

_RUNNER = r"""
import pickle, sys, warnings, logging
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)
import mmengine.config.config as config_module
_STD = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
config_module._is_builtin_module = lambda name: not name.startswith(".") and (
    name.startswith("mmengine.config") or name.split(".")[0] in _STD
)
from mmengine.config import Config

def plain(value):
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if value is None or isinstance(value, (bool, int, float, str, bytes, complex)):
        return value
    return ("<object>", type(value).__name__)

results = {}
for path in sys.argv[2:]:
    try:
        config = Config.fromfile(path, import_custom_modules=False)
        results[path] = ("ok", plain(config.to_dict()))
    except BaseException as error:
        results[path] = ("error", f"{type(error).__name__}: {error}")
with open(sys.argv[1], "wb") as stream:
    pickle.dump(results, stream)
"""


def mmengine_results(paths: Sequence[Path], cwd: Path) -> dict[Path, tuple[str, object]]:
    """path -> ("ok", the config as plain data) | ("error", "Type: message")."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "results.pickle"
        subprocess.run(
            [sys.executable, "-c", _RUNNER, str(out), *map(str, paths)],
            check=True,
            cwd=cwd,  # a config that writes files when it runs writes them here
            env={"PATH": "/usr/bin:/bin"},  # no environment variable leaks into a placeholder
            capture_output=True,
            timeout=300,
        )
        with out.open("rb") as stream:
            results: dict[str, tuple[str, object]] = pickle.load(stream)
    return {Path(path): result for path, result in results.items()}


def same(mine: object, theirs: object) -> bool:
    """Equal, with the same container types all the way down (a tuple is not a list)."""
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, dict):
        assert isinstance(theirs, dict)
        return list(mine) == list(theirs) and all(same(mine[k], theirs[k]) for k in mine)
    if isinstance(mine, list | tuple):
        assert isinstance(theirs, list | tuple)
        return len(mine) == len(theirs) and all(map(same, mine, theirs))
    return bool(mine == theirs) or (mine != mine and theirs != theirs)  # nan
