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
from cfglint.rules.docs import check_arguments, fix_is_safe, pages, reported_line
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


# The findings a user reads: what `cfglint check` prints for each INVALID example, on its page.
PINNED = [(rule, example) for rule, example, ok in CASES if not ok and example.message]
FIXED = [(rule, example) for rule, example, ok in CASES if not ok and example.fixed is not None]
INSTEAD = [(rule, example) for rule, example, ok in CASES if not ok and example.instead]


def _ids(cases: list[tuple[Rule, Example]]) -> list[str]:
    return [f"{rule.code}-{i}" for i, (rule, _) in enumerate(cases)]


def _write(tmp_path: Path, example: Example, **replaced: str) -> None:
    """The example's config.py (and entry.py), with `replaced` files written instead."""
    files = {"config.py": example.config}
    if example.entry is not None:
        files["entry.py"] = example.entry
    files.update(replaced)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")


def test_every_invalid_example_pins_what_the_user_sees_and_what_to_write() -> None:
    for rule, example, ok in CASES:
        if ok or rule not in CHECK_RULES:
            continue
        assert example.message and example.location, (rule.code, example.config)
        assert (example.fixed is None) != (example.instead is None), (rule.code, example.config)


@pytest.mark.parametrize(("rule", "example"), PINNED, ids=_ids(PINNED))
def test_short_messages_that_leave_the_target_to_the_summary(rule: Rule, example: Example) -> None:
    assert example.message is not None
    assert len(example.message) <= 120, example.message
    assert f"target {example.target}" not in example.message


@pytest.mark.parametrize(("rule", "example"), PINNED, ids=_ids(PINNED))
def test_check_prints_the_line_the_page_shows(tmp_path: Path, rule: Rule, example: Example) -> None:
    _write(tmp_path, example)
    result = run_cli(*check_arguments(example), cwd=tmp_path)
    assert reported_line(rule, example) in result.stdout.splitlines(), result.stdout


@pytest.mark.parametrize(("rule", "example"), FIXED, ids=_ids(FIXED))
def test_fix_writes_what_the_page_shows(tmp_path: Path, rule: Rule, example: Example) -> None:
    _write(tmp_path, example)
    command, *rest = check_arguments(example)
    unsafe = [] if fix_is_safe(rule.code, example.target) else ["--unsafe-fixes"]
    result = run_cli(command, "--fix", "--select", rule.code, *unsafe, *rest, cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (tmp_path / example.file).read_text(encoding="utf-8") == example.fixed


@pytest.mark.parametrize(("rule", "example"), INSTEAD, ids=_ids(INSTEAD))
def test_what_the_page_says_to_use_instead_passes(
    tmp_path: Path, rule: Rule, example: Example
) -> None:
    assert example.instead is not None
    _write(tmp_path, example, **{example.file: example.instead})
    result = run_cli(*check_arguments(example), cwd=tmp_path)
    assert result.stdout and f": {rule.code} " not in result.stdout, result.stdout
