"""What a worker sends back and the result cache stores comes back equal, through `__init__`."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cfglint.engine.outcome import ConfigOutcome, Issue
from cfglint.types import (
    Applicability,
    FixIntent,
    KeyChange,
    LeafOverride,
    Notice,
    ResolvedKeys,
    Span,
    pickled_by_fields,
)


def test_an_outcome_with_its_issues_and_fixes_comes_back_equal() -> None:
    path = Path("/project/configs/a.py")
    fix = FixIntent("Set `x` to 1", (KeyChange(("env_cfg", "x"), 1),), Applicability.SAFE)
    override = LeafOverride(fix.changes, ResolvedKeys(frozenset({("env_cfg",)}), frozenset()))
    issue = Issue("CL101", "message", "env_cfg.x", Span(path, 1, 2, 1, 5), (path,), fix)
    outcome = ConfigOutcome(
        path,
        (path, Path("/project/configs/_base_/b.py")),
        True,
        keys=frozenset({"model", "env_cfg"}),
        target="t20-gcu",
        target_error=Notice.error("x", path),
        issues=(issue, Issue("CL201", "m", "k", None, (), fix, "CL101", "warning", override)),
    )
    again = pickle.loads(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == outcome
    assert type(again.issues[0].fix) is FixIntent
    assert again.issues[1].leaf_fix is True
    assert type(again.issues[1].leaf_override) is LeafOverride
    assert again.issues[1].leaf_override == override


def test_a_class_whose_fields_are_not_all_positional_is_refused() -> None:
    with pytest.raises(TypeError, match="positional"):

        @pickled_by_fields
        @dataclass(frozen=True, slots=True, kw_only=True)
        class KeywordOnly:
            a: int

    with pytest.raises(TypeError, match="positional"):

        @pickled_by_fields
        @dataclass(frozen=True, slots=True)
        class NotInInit:
            a: int
            b: list[int] = field(default_factory=list, init=False)
