"""Lazy-import configs against MMEngine's own ``Config.fromfile``: the hand-written set in
``lazy_configs/`` (every form of the style; its README), checked like the corpus oracle.

Every config MMEngine loads, cfglint must resolve; every top-level key it resolves must equal
``Config.to_dict()``'s value (an imported class as its dotted path); and it must resolve at
least 99% of MMEngine's keys.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from mmengine_oracle import compare, run_oracle

from cfglint.loader import Loader

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mmengine") is None, reason="needs MMEngine (the dryrun extra)"
)

CONFIGS = Path(__file__).parent / "lazy_configs"
SITE = CONFIGS / "site"  # an installed package holding configs, as `mmdet/configs/` is
# MMEngine finds a package's folder through `pkg_resources` (setuptools), which this environment
# lacks; `lazypkg` is no installed distribution, so pkg_resources would answer just this and
# MMEngine falls back to the import path.
PKG_RESOURCES = (
    "class DistributionNotFound(Exception):\n    pass\n\n\n"
    "def get_distribution(name):\n    raise DistributionNotFound(name)\n"
)


def lazy_leaves() -> list[Path]:
    return sorted(
        path
        for path in CONFIGS.rglob("*.py")
        if not {"_base_", "site"} & set(path.relative_to(CONFIGS).parts)
    )


def test_cfglint_agrees_with_mmengine_on_lazy_configs(tmp_path: Path) -> None:
    (tmp_path / "pkg_resources.py").write_text(PKG_RESOURCES, encoding="utf-8")
    leaves = lazy_leaves()
    environment = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{SITE}:{tmp_path}"}
    oracle = run_oracle(leaves, environment, stdlib_is_builtin=True)
    sys.path.insert(0, str(SITE))
    try:
        loader = Loader(environ={})
        ours = {str(path): loader.load(path) for path in leaves}
    finally:
        sys.path.remove(str(SITE))

    agreement = compare(oracle, ours)
    print("\n" + agreement.report())
    assert agreement.loaded == len(leaves) >= 7, agreement.refused
    assert not agreement.not_resolved, "\n".join(agreement.not_resolved)
    assert not agreement.disagreements, "\n".join(agreement.disagreements)
    assert agreement.coverage >= 0.99
