"""Every case folder under tests/hostile/cases/ is a test: hostile or broken input, run through
the command line as a user or a bot would, each command in its own process under a memory
limit and a timeout (tests/hostile_cases.py says how a case is written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_cases import (
    Case,
    build,
    can_drop_privileges,
    execute,
    load_cases,
    problems,
    snapshot,
    teardown,
)


def _param(case: Case) -> object:
    marks = [pytest.mark.corpus] if case.slow else []
    if case.drop_privileges and not can_drop_privileges():
        marks.append(pytest.mark.skip(reason="needs setpriv to run without root's powers"))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in load_cases()])
def test_case(case: Case, tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    build(case, root)
    try:
        failures = []
        for number, run in enumerate(case.runs, 1):
            before = snapshot(root)
            outcome = execute(case, run, root)
            found = problems(case, run, root, before, outcome)
            if found:
                failures.append(
                    f"run {number} `cfglint {' '.join(run.args)}`: {'; '.join(found)}\n"
                    f"--- stdout\n{outcome.stdout[-3000:]}--- stderr\n{outcome.stderr[-3000:]}"
                )
        assert not failures, f"{case.about}\n" + "\n".join(failures)
    finally:
        teardown(case, root)


def test_every_case_says_what_it_keeps_fixed() -> None:
    cases = load_cases()
    assert len(cases) >= 16
    for case in cases:
        assert case.about and case.runs, case.name
