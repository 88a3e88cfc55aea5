"""The check after each round of fixes: intended values set, nothing else changed."""

from __future__ import annotations

from pathlib import Path

from cfglint.engine.verify import Baseline, Expectation
from cfglint.loader import Loader
from cfglint.types import KeyChange, ResolvedConfig

BACKEND = ("env_cfg", "dist_cfg", "backend")


def _root(tmp_path: Path, source: str, name: str = "a.py") -> ResolvedConfig:
    path = tmp_path / name
    path.write_text(source)
    loaded = Loader().load(path)
    assert isinstance(loaded, ResolvedConfig)
    return loaded


def test_only_the_intended_key_changed(tmp_path: Path) -> None:
    before = _root(tmp_path, "env_cfg = dict(dist_cfg=dict(backend='nccl'), seed=1)\n")
    expectation = Expectation((BACKEND,), (KeyChange(BACKEND, "gloo"),))
    baseline = Baseline(before.root, expectation)
    fixed = _root(tmp_path, "env_cfg = dict(dist_cfg=dict(backend='gloo'), seed=1)\n", "b.py")
    assert baseline.problem(fixed.root) is None
    not_fixed = _root(tmp_path, "env_cfg = dict(dist_cfg=dict(backend='nccl'), seed=1)\n", "c.py")
    assert baseline.problem(not_fixed.root) == "it does not set `env_cfg.dist_cfg.backend`"


def test_another_key_changing_type_is_a_change(tmp_path: Path) -> None:
    """`1` and `True` are equal in Python, not in a config."""
    before = _root(tmp_path, "env_cfg = dict(seed=1)\nother = dict(a=1)\n")
    baseline = Baseline(before.root, Expectation((BACKEND,)), frozenset({"env_cfg"}))
    after = _root(tmp_path, "env_cfg = dict(seed=True)\nother = dict(a=1)\n", "b.py")
    assert baseline.problem(after.root) == "it would also change `env_cfg.seed`"
    moved = _root(tmp_path, "\n\nenv_cfg = dict(seed=1)\nother = dict(a=1)\n", "c.py")
    assert baseline.problem(moved.root) is None  # origins moved, values did not


def test_a_key_holding_the_replaced_literal_may_change_with_it(tmp_path: Path) -> None:
    source = "backend = 'nccl'\nenv_cfg = dict(dist_cfg=dict(backend=backend))\n"
    before = _root(tmp_path, source)
    literal = before.get("backend")
    assert literal is not None
    expectation = Expectation((BACKEND,), (KeyChange(BACKEND, "gloo"),))
    strict = Baseline(before.root, expectation)
    after = _root(tmp_path, source.replace("nccl", "gloo"), "b.py")
    assert strict.problem(after.root) == "it would also change `backend`"
    aliased = Expectation(
        expectation.allowed, expectation.intended, frozenset({literal.origin.span})
    )
    assert Baseline(before.root, aliased).problem(after.root) is None
