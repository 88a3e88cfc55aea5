"""The entry oracle on the real corpus: every selected launch of mmdet's, mmseg's and
mmpretrain's ``tools/train.py`` runs, and the captured configs show what the scripts do
(``benchmarks/entry_oracle.py --self-check`` does the same from the command line)."""

from __future__ import annotations

import pytest
from entry_oracle import self_check

pytestmark = pytest.mark.corpus


def test_the_real_entry_scripts_hand_the_runner_what_their_arguments_say() -> None:
    outcomes = self_check()
    assert sum(outcome.status == "ok" for outcome in outcomes.values()) >= 150
