"""What is no finding (a warning, an error, cfglint's own failure) through the command line: the
line on stderr, the exit code, and the same notice in SARIF's `invocations` (valid against the
SARIF 2.1.0 schema), with the file and line it is about."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import CliResult, run_cli
from hostile_cases import HOOK_CLI
from project_tree import write_tree

FINDING = "model = dict(type='X')\nenv_cfg = dict(cudnn_benchmark=True)\n"
UNKNOWN_NOQA = "model = dict(type='X')  # cfglint: noqa: CL999\n"


def _sarif(result: CliResult, validate_sarif: Callable[[object], None]) -> dict[str, Any]:
    log = json.loads(result.stdout)
    validate_sarif(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert isinstance(invocation, dict)
    return invocation


def _notification(level: str, text: str, uri: str, line: int | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
    if line is not None:
        location["region"] = {"startLine": line}
    locations = [{"physicalLocation": location}]
    return {"level": level, "message": {"text": text}, "locations": locations}


def test_a_warning_is_on_stderr_and_a_sarif_notification(
    tmp_path: Path, validate_sarif: Callable[[object], None]
) -> None:
    project = write_tree(tmp_path, {"a.py": FINDING, "b.py": UNKNOWN_NOQA})
    text = run_cli("check", "--no-cache", "--target", "t20-gcu", cwd=project)
    warning = "b.py:1: unknown rule `CL999` in a noqa comment"
    assert text.stderr == f"cfglint: warning: {warning}\n"
    assert text.exit_code == 1  # the finding in a.py; a warning never changes the exit code
    sarif = run_cli(
        "check", "--no-cache", "--target", "t20-gcu", "--output-format", "sarif", cwd=project
    )
    assert (sarif.exit_code, sarif.stderr) == (1, text.stderr)
    assert _sarif(sarif, validate_sarif) == {
        "executionSuccessful": True,
        "toolExecutionNotifications": [_notification("warning", warning, "b.py", 1)],
    }


def test_an_error_is_on_stderr_and_a_failed_invocation(
    tmp_path: Path, validate_sarif: Callable[[object], None]
) -> None:
    """A config without a target is not checked: exit code 2, and SARIF says the run did not
    succeed, with the config the error is about."""
    project = write_tree(
        tmp_path, {"a.py": "# cfglint: target=t20-gcu\n" + FINDING, "b.py": "model = dict()\n"}
    )
    text = run_cli("check", "--no-cache", cwd=project)
    assert text.exit_code == 2
    [line] = text.stderr.splitlines()
    config = project / "b.py"
    assert line.startswith(f"cfglint: error: {config}: no target for this config: pass --target")
    assert "Exit code 2: 1 error on stderr." in text.stdout
    sarif = run_cli("check", "--no-cache", "--output-format", "sarif", cwd=project)
    assert (sarif.exit_code, sarif.stderr) == (2, text.stderr)
    invocation = _sarif(sarif, validate_sarif)
    # SARIF messages escape brackets (they would read as links): `[tool.cfglint]` in the help.
    message = line.removeprefix("cfglint: error: ").replace("[", "\\[").replace("]", "\\]")
    assert invocation == {
        "executionSuccessful": False,
        "toolExecutionNotifications": [_notification("error", message, "b.py")],
    }


def test_a_run_without_notices_succeeded(
    tmp_path: Path, validate_sarif: Callable[[object], None]
) -> None:
    project = write_tree(tmp_path, {"a.py": FINDING})
    sarif = run_cli(
        "check", "--no-cache", "--target", "t20-gcu", "--output-format", "sarif", cwd=project
    )
    assert (sarif.exit_code, sarif.stderr) == (1, "")
    assert _sarif(sarif, validate_sarif) == {
        "executionSuccessful": True,
        "toolExecutionNotifications": [],
    }


def _with_a_bug_loading(name: str, *args: str, cwd: Path) -> CliResult:
    """cfglint with an unexpected exception while resolving the file `name`
    (tests/hostile/hook_cli.py), in a process of its own."""
    completed = subprocess.run(
        [sys.executable, str(HOOK_CLI), f"crash-loading:{name}", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


@pytest.mark.parametrize("output_format", ["text", "sarif"])
def test_an_internal_error_is_on_stderr_and_a_failed_invocation(
    tmp_path: Path, validate_sarif: Callable[[object], None], output_format: str
) -> None:
    project = write_tree(tmp_path, {"a.py": FINDING, "boom.py": FINDING, "c.py": UNKNOWN_NOQA})
    args = ("check", "--no-cache", "--target", "t20-gcu", "--output-format", output_format)
    result = _with_a_bug_loading("boom.py", *args, cwd=project)
    assert result.exit_code == 2
    internal, warning = result.stderr.splitlines()
    assert internal.startswith(
        "cfglint: internal error in boom.py: TypeError: injected fault while resolving boom.py "
        "(traceback written to "
    )
    assert warning == "cfglint: warning: c.py:1: unknown rule `CL999` in a noqa comment"
    if output_format == "text":
        assert "a.py:2:" in result.stdout and "boom.py" not in result.stdout
        assert result.stdout.endswith("Exit code 2: 1 internal error on stderr.\n")
        return
    invocation = _sarif(result, validate_sarif)
    assert invocation == {
        "executionSuccessful": False,
        "toolExecutionNotifications": [
            _notification("error", internal.removeprefix("cfglint: "), "boom.py"),
            _notification("warning", warning.removeprefix("cfglint: warning: "), "c.py", 1),
        ],
    }


def test_diff_prints_the_errors_its_exit_code_counts(tmp_path: Path) -> None:
    """`--diff` tells on stderr what makes it exit 2, as the report does."""
    project = write_tree(
        tmp_path, {"a.py": "# cfglint: target=t20-gcu\n" + FINDING, "b.py": "model = dict()\n"}
    )
    result = run_cli("check", "--no-cache", "--diff", cwd=project)
    assert result.exit_code == 2
    error, would_fix, reasons = result.stderr.splitlines()
    assert error.startswith(f"cfglint: error: {project / 'b.py'}: no target for this config")
    assert would_fix.startswith("Would fix ")
    assert reasons == "Exit code 2: 1 error on stderr."
    assert result.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
