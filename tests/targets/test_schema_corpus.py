"""A target's JSON Schema against `cfglint check` on the real corpus: every leaf config of the
three packages that JSON can hold, for every shipped target, rule by rule."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from corpus import CorpusInfo, ensure_corpus, findable_packages
from schema_agreement import check_failures, disagreements, plain_data

from cfglint.loader import Loader
from cfglint.targets import TargetRegistry
from cfglint.targets.config_model import rule_schemas
from cfglint.types import ResolvedConfig

pytestmark = pytest.mark.corpus


def test_the_schema_of_every_target_agrees_with_the_check_on_the_corpus() -> None:
    corpus: CorpusInfo = ensure_corpus()
    registry = TargetRegistry()
    targets = [registry.get(name) for name in registry.names()]
    started = time.perf_counter()
    loader = Loader()
    compared = 0
    failing: Counter[str] = Counter()
    wrong: list[str] = []
    with findable_packages(corpus):
        for leaf in corpus.leaves:
            config = loader.load(leaf)
            if not isinstance(config, ResolvedConfig) or plain_data(config) is None:
                continue
            compared += 1
            for target in targets:
                failing.update(
                    f"{target.name} {code}"
                    for code in check_failures(config, target) & set(rule_schemas(target))
                )
                wrong.extend(f"{leaf} {target.name} {d}" for d in disagreements(config, target))
    print(
        f"\n{compared} of {len(corpus.leaves)} leaves compared on {len(targets)} targets in "
        f"{time.perf_counter() - started:.1f} s; failing per target and rule: {dict(failing)}"
    )
    assert compared >= 1900  # nearly every leaf: JSON holds what the corpus writes
    # The comparison must meet both verdicts: some configs fail a rule, most pass it.
    assert failing["t20-gcu CL201"] >= 1900 and failing["cuda CL101"] == 0
    assert wrong == []
