"""Every process a test starts and waits for has a timeout: a hung child must fail the test, not
hang the suite (and CI) until the job is killed."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
WAITING_CALLS = frozenset({"run", "check_output", "check_call", "call"})


def calls_without_timeout(source: str) -> list[int]:
    """The lines of `subprocess.run(...)` (and the other waiting calls) with no `timeout=`; a
    call passing `**options` may carry one and is left alone."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        if not (isinstance(owner, ast.Name) and owner.id == "subprocess"):
            continue
        if node.func.attr not in WAITING_CALLS:
            continue
        keywords = {keyword.arg for keyword in node.keywords}
        if "timeout" not in keywords and None not in keywords:
            lines.append(node.lineno)
    return lines


def test_the_finder_finds_a_call_without_timeout() -> None:
    source = (
        "import subprocess\n"
        "subprocess.run(['git', 'init'], check=True)\n"
        "subprocess.run(['git', 'init'], check=True, timeout=60)\n"
        "subprocess.check_output(['ls'])\n"
        "subprocess.run(['ls'], **options)\n"
    )
    assert calls_without_timeout(source) == [2, 4]


def test_every_subprocess_a_test_waits_for_has_a_timeout() -> None:
    missing = {
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in calls_without_timeout(path.read_text(encoding="utf-8"))
    }
    assert missing == set()
