"""Load configs with MMEngine's own ``Config.fromfile`` in worker processes (the oracle).

Run as a script so MMEngine (and whatever configs do when executed) never touches the caller:
``python benchmarks/mmengine_oracle.py OUT.pickle [--stdlib-is-builtin] < paths``. ``OUT`` holds
a dict path -> ("ok", plain to_dict() value) | ("error", "ExceptionType: message").

Used by the corpus oracle test and benchmark, and by the loader's small cases checked against
MMEngine (tests/loader/test_against_mmengine.py).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

_SCALARS = (type(None), bool, int, float, str, bytes, complex)


class Opaque:
    """Stands for a value that is not plain data (a class, a function, a range)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"<opaque {self.text}>"


def plain(value: object) -> object:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    return Opaque(f"{type(value).__name__}: {value!r}"[:200])


def same(mine: object, theirs: object) -> bool:
    """Equal, with the same container types all the way down (a tuple is not a list); a lazy
    import of cfglint's is compared as ``to_dict()`` renders MMEngine's: its dotted path."""
    from cfglint.types import LazyImport

    if isinstance(mine, LazyImport):
        mine = mine.path
    if type(mine) is not type(theirs):
        return False
    if isinstance(mine, dict):
        assert isinstance(theirs, dict)
        return list(mine) == list(theirs) and all(same(mine[k], theirs[k]) for k in mine)
    if isinstance(mine, list | tuple):
        assert isinstance(theirs, list | tuple)
        return len(mine) == len(theirs) and all(map(same, mine, theirs))
    return bool(mine == theirs) or (mine != mine and theirs != theirs)  # nan


@dataclass
class Agreement:
    """cfglint's results against MMEngine's, key by key (the oracle tests print and assert it)."""

    configs: int = 0
    loaded: int = 0  # by MMEngine
    keys: int = 0  # top-level keys of the configs MMEngine loads
    resolved: int = 0  # of those, resolved by cfglint (no unknown inside)
    not_resolved: list[str] = field(default_factory=list)  # configs MMEngine loads, cfglint not
    disagreements: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # MMEngine's error -> cfglint's verdict

    @property
    def coverage(self) -> float:
        return self.resolved / max(self.keys, 1)

    @property
    def agreement(self) -> float:
        return (self.resolved - len(self.disagreements)) / max(self.resolved, 1)

    def report(self) -> str:
        lines = [
            f"configs: {self.configs}; MMEngine loads {self.loaded}",
            f"top-level keys: {self.keys}; cfglint resolved {self.resolved} "
            f"(coverage {self.coverage:.4%})",
            f"agreement: {self.agreement:.4%} ({len(self.disagreements)} disagreements)",
            f"MMEngine could not load {len(self.refused)}:",
        ]
        lines.extend(f"  {path}: {verdict}" for path, verdict in sorted(self.refused.items()))
        return "\n".join(lines)


def compare(oracle: Mapping[str, tuple[str, object]], ours: Mapping[str, object]) -> Agreement:
    """Every top-level key MMEngine returns, against cfglint's resolution of the same config
    (``ours``: path -> LoadResult); a key cfglint has and MMEngine lacks is a disagreement."""
    from cfglint.types import ResolvedConfig, UnknownValueError, to_python

    result = Agreement(configs=len(oracle))
    for path, (status, theirs) in sorted(oracle.items()):
        mine = ours[path]
        if status != "ok":
            verdict = (
                "cfglint resolves it"
                if isinstance(mine, ResolvedConfig)
                else f"cfglint {mine.problems[0].code}"  # type: ignore[attr-defined]
            )
            result.refused[path] = f"{theirs} [{verdict}]"
            continue
        result.loaded += 1
        if not isinstance(mine, ResolvedConfig):
            result.not_resolved.append(f"{path}: {mine.problems[0]}")  # type: ignore[attr-defined]
            continue
        assert isinstance(theirs, dict)
        for key, value in theirs.items():
            result.keys += 1
            node = mine.root.entries.get(key)
            if node is None:
                continue
            try:
                resolved = to_python(node)
            except UnknownValueError:
                continue
            result.resolved += 1
            if not same(resolved, value):
                result.disagreements.append(
                    f"{path}: {key}: cfglint {resolved!r} != MMEngine {value!r}"
                )
        extra = set(mine.root.entries) - set(theirs)
        if extra:
            result.disagreements.append(
                f"{path}: keys MMEngine does not have: {sorted(map(str, extra))}"
            )
    return result


def _stdlib_is_builtin() -> None:
    """MMEngine decides whether a config is a "lazy import" one by asking where each imported
    module lives; in a virtual environment it mistakes the standard library for third-party
    code. Answer from the module's name instead, as a normal installation would (and as
    cfglint does), so that `import os` keeps a config on MMEngine's ordinary path, and a
    lazy-import config runs its standard-library imports instead of making LazyObjects."""
    import mmengine.config.config as config_module
    import mmengine.config.utils as utils_module

    standard = set(sys.stdlib_module_names) | set(sys.builtin_module_names)

    def is_builtin(name: str) -> bool:
        return not name.startswith(".") and (
            name.startswith("mmengine.config") or name.split(".")[0] in standard
        )

    config_module._is_builtin_module = is_builtin
    utils_module._is_builtin_module = is_builtin


def _load_one(path: str) -> tuple[str, tuple[str, object]]:
    import warnings

    from mmengine.config import Config

    warnings.simplefilter("ignore")
    try:
        config = Config.fromfile(path, import_custom_modules=False)
        return path, ("ok", plain(config.to_dict()))
    except BaseException as error:  # a config may `sys.exit()` or `raise SystemExit`
        return path, (
            "error",
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
        )


def run_oracle(
    paths: Sequence[Path],
    env: Mapping[str, str] | None = None,
    *,
    cwd: Path | None = None,
    stdlib_is_builtin: bool = False,
) -> dict[str, tuple[str, object]]:
    """MMEngine's result for each path, computed in a separate process pool.

    A config that writes files when it runs writes them in `cwd` (default: a scratch folder).
    """
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "oracle.pickle"
        subprocess.run(
            [sys.executable, __file__, str(out), *(["--stdlib-is-builtin"] * stdlib_is_builtin)],
            input="\n".join(str(path) for path in paths),
            text=True,
            check=True,
            env=dict(env) if env is not None else None,
            cwd=cwd or scratch,
            stdout=subprocess.DEVNULL,
        )
        with out.open("rb") as stream:
            results: dict[str, tuple[str, object]] = pickle.load(stream)
    return results


def main() -> None:
    import logging
    from multiprocessing import Pool

    # Workers use this file as the module `mmengine_oracle` (not `__main__`), so the pickled
    # Opaque values load back in the caller.
    import mmengine_oracle

    logging.disable(logging.CRITICAL)
    paths = [line for line in sys.stdin.read().splitlines() if line]
    initializer = _stdlib_is_builtin if "--stdlib-is-builtin" in sys.argv[2:] else None
    with Pool(os.cpu_count() or 2, initializer=initializer, maxtasksperchild=200) as pool:
        results = dict(pool.imap_unordered(mmengine_oracle._load_one, paths, chunksize=8))
    with open(sys.argv[1], "wb") as stream:
        pickle.dump(results, stream)


if __name__ == "__main__":
    main()
