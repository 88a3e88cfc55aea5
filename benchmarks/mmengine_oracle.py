"""Load configs with MMEngine's own ``Config.fromfile`` in worker processes (the oracle).

Run as a script so MMEngine (and whatever configs do when executed) never touches the caller:
``python benchmarks/mmengine_oracle.py OUT.pickle < paths``. ``OUT`` holds a dict
path -> ("ok", plain to_dict() value) | ("error", "ExceptionType: message").
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
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


def _load_one(path: str) -> tuple[str, tuple[str, object]]:
    import warnings

    from mmengine.config import Config

    warnings.simplefilter("ignore")
    try:
        config = Config.fromfile(path, import_custom_modules=False)
        return path, ("ok", plain(config.to_dict()))
    except Exception as error:
        return path, (
            "error",
            f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}",
        )


def run_oracle(
    paths: Sequence[Path], env: Mapping[str, str] | None = None
) -> dict[str, tuple[str, object]]:
    """MMEngine's result for each path, computed in a separate process pool."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "oracle.pickle"
        subprocess.run(
            [sys.executable, __file__, str(out)],
            input="\n".join(str(path) for path in paths),
            text=True,
            check=True,
            env=dict(env) if env is not None else None,
            cwd=scratch,  # a config that writes files when run writes them here
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
    with Pool(os.cpu_count() or 2, maxtasksperchild=200) as pool:
        results = dict(pool.imap_unordered(mmengine_oracle._load_one, paths, chunksize=8))
    with open(sys.argv[1], "wb") as stream:
        pickle.dump(results, stream)


if __name__ == "__main__":
    main()
