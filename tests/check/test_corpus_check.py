"""`check` over the real OpenMMLab corpus: quiet for CUDA, every loadable config flagged for T20."""

from __future__ import annotations

from collections import Counter

import pytest
from corpus import CorpusInfo, ensure_corpus, findable_packages

from cfglint.engine.run import CheckRequest, CheckResult, run_check
from cfglint.types import NoticeKind

pytestmark = pytest.mark.corpus

VALUE_RULES = ("CL1", "CL2", "CL3")


@pytest.fixture(scope="module")
def corpus() -> CorpusInfo:
    return ensure_corpus()


def _check(corpus: CorpusInfo, target: str) -> CheckResult:
    with findable_packages(corpus):
        return run_check(CheckRequest(corpus.config_roots, cli_target=target))


def _report(target: str, result: CheckResult) -> Counter[str]:
    counts = Counter(v.code for v in result.violations)
    print(
        f"\n--target {target}: {len(result.resolved)} configs resolved, "
        f"{len(result.targets)} checked (the rest are fragments); per code: {dict(counts)}"
    )
    return counts


def test_cuda_target_is_quiet_on_real_configs(corpus: CorpusInfo) -> None:
    result = _check(corpus, "cuda")
    _report("cuda", result)
    # Warnings stay: the mmcv-1.x keys (CL302) the corpus still carries are ignored on CUDA too.
    value_findings = [
        v for v in result.violations if v.code.startswith(VALUE_RULES) and v.severity == "error"
    ]
    assert value_findings == []
    assert not [notice for notice in result.notices if notice.kind is NoticeKind.ERROR]


# What each new target finds on the corpus (docs/benchmarks.md, "Targets on the corpus").
NEW_TARGETS = {
    "ascend-npu": {"CL103": 4, "CL302": 3},
    "cambricon-mlu": {"CL103": 4, "CL302": 3},
    "moore-threads-musa": {"CL103": 4, "CL302": 3},
    "apple-mps": {"CL301": 5, "CL302": 3, "CL501": 91},
}


@pytest.mark.parametrize("target", sorted(NEW_TARGETS))
def test_new_targets_run_clean_on_real_configs(corpus: CorpusInfo, target: str) -> None:
    result = _check(corpus, target)
    counts = _report(target, result)
    assert not [notice for notice in result.notices if notice.kind is NoticeKind.INTERNAL]
    found = {code: n for code, n in counts.items() if code.startswith(("CL1", "CL3", "CL4", "CL5"))}
    assert found == NEW_TARGETS[target]


def test_t20_target_flags_every_resolved_config(corpus: CorpusInfo) -> None:
    result = _check(corpus, "t20-gcu")
    counts = _report("t20-gcu", result)
    flagged = {
        config
        for violation in result.violations
        if violation.code.startswith(VALUE_RULES)
        for config in violation.configs
    }
    checked = set(result.targets)  # resolved configs with a `model`: not fragments
    unflagged = sorted(checked - flagged)
    assert unflagged == []
    # MMEngine's default wrapper (no model_wrapper_cfg) is everywhere in the corpus, reported
    # at the bases the configs lacking the key share: a few findings, not one per config.
    lacking = {c for v in result.violations if v.code == "CL201" for c in v.configs}
    assert len(lacking) >= 0.95 * len(checked)
    assert counts["CL201"] <= 0.1 * len(lacking)
    assert len(result.resolved) >= 0.99 * len(corpus.leaves)
