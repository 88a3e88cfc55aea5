"""Every rule's VALID/INVALID examples: the same snippets its documentation shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO_ROOT, run_cli

from cfglint.engine.evaluate import evaluate, evaluate_view
from cfglint.launch.explore import explore
from cfglint.loader import Loader
from cfglint.rules import ALL_RULES, CHECK_RULES
from cfglint.rules.base import Example, Rule, examples_in
from cfglint.rules.docs import pages
from cfglint.targets import TargetRegistry
from cfglint.types import Launch, LoadFailure, ResolvedConfig

CASES = list(examples_in(ALL_RULES))


def _codes(tmp_path: Path, example: Example) -> set[str]:
    config = tmp_path / "leaf_config.py"
    config.write_text(example.config, encoding="utf-8")
    if example.entry is not None:
        return _launch_codes(tmp_path, example, config)
    result = Loader(environ={}).load(config)
    if isinstance(result, LoadFailure):
        return {problem.code for problem in result.problems}
    assert isinstance(result, ResolvedConfig)
    target = TargetRegistry().get(example.target)
    return {finding.code for finding in evaluate(result, target, CHECK_RULES)}


def _launch_codes(tmp_path: Path, example: Example, config: Path) -> set[str]:
    """The example launched as `python entry.py leaf_config.py ARGS...`."""
    assert example.entry is not None
    entry = tmp_path / "entry.py"
    entry.write_text(example.entry, encoding="utf-8")
    launch = Launch(entry, (str(config), *example.arguments), tmp_path, "python")
    target = TargetRegistry().get(example.target)
    view = explore(launch, target.host, Loader(environ={}))
    assert not view.problems, view.problems
    assert any(world.config is not None for world in view.worlds), view.worlds
    return {finding.code for finding in evaluate_view(view, target, CHECK_RULES)}


@pytest.mark.parametrize(
    ("rule", "example", "is_valid"),
    CASES,
    ids=[
        f"{rule.code}-{'valid' if ok else 'invalid'}-{i}" for i, (rule, _, ok) in enumerate(CASES)
    ],
)
def test_example(tmp_path: Path, rule: Rule, example: Example, is_valid: bool) -> None:
    codes = _codes(tmp_path, example)
    if is_valid:
        assert rule.code not in codes
    else:
        assert rule.code in codes


def test_every_check_rule_has_both_kinds_of_example() -> None:
    for rule in CHECK_RULES:
        assert rule.valid and rule.invalid, rule.code


def test_rule_pages_are_current() -> None:
    """docs/rules/ is generated from the rules: `python -m cfglint.rules.docs docs/rules`."""
    folder = REPO_ROOT / "docs" / "rules"
    for name, text in pages().items():
        assert (folder / name).read_text(encoding="utf-8") == text, f"regenerate docs/rules/{name}"


def _launchable(config: str) -> str:
    """The example as a leaf `check` reports on: a config without `model` is a fragment."""
    return config if "model = " in config else "model = dict(type='M')\n" + config


PINNED = [(rule, example) for rule, example, ok in CASES if not ok and example.message]
FIXED = [(rule, example) for rule, example, ok in CASES if not ok and example.fixed is not None]


@pytest.mark.parametrize(
    ("rule", "example"), PINNED, ids=[f"{rule.code}-{i}" for i, (rule, _) in enumerate(PINNED)]
)
def test_check_prints_the_message_the_page_shows(
    tmp_path: Path, rule: Rule, example: Example
) -> None:
    (tmp_path / "leaf_config.py").write_text(_launchable(example.config), encoding="utf-8")
    result = run_cli("check", "--target", example.target, "leaf_config.py", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert any(f" {rule.code} " in line and example.message in line for line in lines), lines


@pytest.mark.parametrize(
    ("rule", "example"), FIXED, ids=[f"{rule.code}-{i}" for i, (rule, _) in enumerate(FIXED)]
)
def test_fix_writes_what_the_page_shows(tmp_path: Path, rule: Rule, example: Example) -> None:
    config = tmp_path / "leaf_config.py"
    config.write_text(_launchable(example.config), encoding="utf-8")
    result = run_cli("check", "--fix", "--target", example.target, "leaf_config.py", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert example.fixed is not None
    assert config.read_text(encoding="utf-8") == _launchable(example.fixed)
