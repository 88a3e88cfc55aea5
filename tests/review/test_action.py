"""The composite action at the top level: every input it reads is declared, nothing is spliced
into the script, and the command it builds is one `cfglint review` accepts."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import yaml
from helpers import REPO_ROOT

from cfglint.cli import build_parser

ACTION = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))


def test_the_action_is_composite_with_the_issue_s_inputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"target", "select", "fail-on", "token"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["token"]["default"] == "${{ github.token }}"


def test_inputs_reach_the_script_only_through_the_environment() -> None:
    used = set()
    for step in ACTION["runs"]["steps"]:
        for value in [*step.get("env", {}).values(), *step.get("with", {}).values()]:
            used |= set(re.findall(r"inputs\.([\w-]+)", str(value)))
        # `${{ }}` inside `run:` would let a crafted input run shell commands.
        assert "${{" not in step.get("run", "")
    assert used == set(ACTION["inputs"])


def test_the_script_builds_a_command_the_cli_accepts(tmp_path: Path) -> None:
    script = ACTION["runs"]["steps"][-1]["run"]
    fake_cfglint = tmp_path / "cfglint"
    fake_cfglint.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
    fake_cfglint.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tmp_path}:{os.environ['PATH']}",
        "INPUT_FAIL_ON": "warning",
        "INPUT_EVENT": "REQUEST_CHANGES",
        "INPUT_TARGET": "t20-gcu",
        "INPUT_SELECT": "CL2",
        "INPUT_FILES": "^configs/.*\\.py$",
        "INPUT_REVIEW_FILE": "review file.json",
        "INPUT_POST_FROM": "",
    }
    out = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, check=True, timeout=300
    ).stdout
    argv = out.splitlines()
    assert argv == shlex.split(
        "review --token-env CFGLINT_TOKEN --fail-on warning --event REQUEST_CHANGES "
        "--target t20-gcu --select CL2 --files '^configs/.*\\.py$' --review-file 'review file.json'"
    )
    args = build_parser().parse_args(argv)
    assert (args.fail_on, args.event, args.select) == ("warning", "REQUEST_CHANGES", ("CL2",))
