"""Fidelity oracle: cfglint's static resolution against MMEngine's own ``Config.fromfile``.

Over every leaf config of the real corpus (mmdet, mmsegmentation, mmpretrain wheels): every
config MMEngine loads, cfglint must resolve; every top-level key cfglint resolves (no unknown
inside) must equal MMEngine's value exactly (tuple vs list included); and cfglint must resolve,
rather than mark unknown, at least 99% of MMEngine's top-level keys.
"""

from __future__ import annotations

import pytest
from corpus import ensure_corpus, findable_packages, subprocess_env
from mmengine_oracle import run_oracle, same

from cfglint.loader import Loader
from cfglint.types import ResolvedConfig, UnknownValueError, to_python

pytestmark = pytest.mark.corpus


def test_cfglint_agrees_with_mmengine_on_the_real_corpus() -> None:
    corpus = ensure_corpus()
    oracle = run_oracle(corpus.leaves, subprocess_env(corpus, {"PATH": "/usr/bin:/bin"}))
    with findable_packages(corpus):
        loader = Loader(environ={})
        ours = {str(path): loader.load(path) for path in corpus.leaves}

    mmengine_failed = {path: value for path, (status, value) in oracle.items() if status != "ok"}
    not_resolved: list[str] = []
    disagreements: list[str] = []
    keys = resolved = 0
    for path, (status, theirs) in sorted(oracle.items()):
        if status != "ok":
            continue
        result = ours[path]
        if not isinstance(result, ResolvedConfig):
            not_resolved.append(f"{path}: {result.problems[0]}")
            continue
        assert isinstance(theirs, dict)
        for key, value in theirs.items():
            keys += 1
            node = result.root.entries.get(key)
            if node is None:
                continue
            try:
                mine = to_python(node)
            except UnknownValueError:
                continue
            resolved += 1
            if not same(mine, value):
                disagreements.append(f"{path}: {key}: cfglint {mine!r} != MMEngine {value!r}")
        extra = set(result.root.entries) - set(theirs)
        if extra:
            disagreements.append(f"{path}: keys MMEngine does not have: {sorted(map(str, extra))}")

    loaded = len(oracle) - len(mmengine_failed)
    agreement = (resolved - len(disagreements)) / max(resolved, 1)
    coverage = resolved / max(keys, 1)
    print(f"\nleaf configs: {len(oracle)}; MMEngine loads {loaded}")
    print(f"top-level keys: {keys}; cfglint resolved {resolved} (coverage {coverage:.4%})")
    print(f"agreement: {agreement:.4%} ({len(disagreements)} disagreements)")
    print(f"MMEngine could not load {len(mmengine_failed)}:")
    for path, error in sorted(mmengine_failed.items()):
        verdict = ours[path]
        ours_text = (
            f"cfglint {verdict.problems[0].code}"
            if not isinstance(verdict, ResolvedConfig)
            else "cfglint resolves it"
        )
        print(f"  {path}: {error} [{ours_text}]")
    assert not not_resolved, "\n".join(not_resolved[:20])
    assert not disagreements, "\n".join(disagreements[:20])
    assert coverage >= 0.99
