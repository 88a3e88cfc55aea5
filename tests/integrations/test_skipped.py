"""What a hook must never fail a commit on: files that are not configs (CL907, a warning in
every format), and files the settings exclude (`--force-exclude`); a lazy-import config beside
them is checked like any other."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_cli

SETTINGS = "[tool.cfglint]\ndefault-target = 't20-gcu'\ninclude = ['*.py', '*.json']\n"
LAZY = (
    "from mmengine.config import read_base\n\n"
    "with read_base():\n    from .._base_.runtime import *\n\n"
    "model = dict(type='RetinaNet')\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)
RUNTIME = "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
CLEAN = (
    "model = dict(type='M')\nenv_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n"
)


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"pyproject.toml": SETTINGS, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _project(
        tmp_path / "project",
        {
            "configs/_base_/runtime.py": RUNTIME,
            "configs/retinanet/retina.py": LAZY,
            "configs/coco/classes.json": '["person", "bicycle"]\n',
            "configs/coco/clean.py": CLEAN,
        },
    )


def test_data_files_are_skipped_with_a_warning_and_lazy_configs_checked(project: Path) -> None:
    # Named one by one, as pre-commit does, and found by walking the folder.
    for args in (("configs/retinanet/retina.py", "configs/coco/classes.json"), ("configs",)):
        result = run_cli("check", *args, cwd=project)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert result.stdout == (
            "configs/coco/classes.json:1:1: CL907 not a config (the top level is a list): skipped\n"
            "  see: cfglint rule CL907\n"
            "Found 1 warning.\n"
        )
    (project / "configs/_base_/runtime.py").write_text(RUNTIME.replace("gloo", "nccl"))
    result = run_cli("check", "configs/retinanet/retina.py", cwd=project)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.stdout.startswith("configs/_base_/runtime.py:1:38: CL101 [*] ")


def test_the_warning_in_every_machine_format(
    project: Path,
    validate_sarif: Callable[[object], None],
    validate_rdjson: Callable[[object], None],
) -> None:
    data = "configs/coco/classes.json"

    def run(fmt: str) -> str:
        result = run_cli("check", data, "--output-format", fmt, cwd=project)
        assert result.exit_code == 0, result.stdout + result.stderr
        return result.stdout

    [record] = json.loads(run("json"))
    assert (record["code"], record["severity"]) == ("CL907", "warning")
    log = json.loads(run("sarif"))
    validate_sarif(log)
    [result] = log["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("CL907", "warning")
    assert "skipped" in result["message"]["text"]
    document = json.loads(run("rdjson"))
    validate_rdjson(document)
    [diagnostic] = document["diagnostics"]
    assert (diagnostic["code"]["value"], diagnostic["severity"]) == ("CL907", "WARNING")
    assert run("github") == (
        f"::warning file={data},line=1,col=1,endLine=1,endColumn=1,title=cfglint (CL907)::"
        "not a config (the top level is a list): skipped\n"
    )


def test_warnings_do_not_hide_errors(project: Path) -> None:
    (project / "configs/coco/bad.py").write_text(
        CLEAN.replace("device_ids=None", "device_ids=[0]"), encoding="utf-8"
    )
    result = run_cli("check", "configs", cwd=project)
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "Found 1 error and 1 warning on target t20-gcu." in result.stdout


def test_as_a_base_the_same_files_still_break_the_config(project: Path) -> None:
    """MMEngine refuses a lazy config (CL905), or a list (CL902), as the `_base_` of a plain
    config."""
    for base, code in (("../retinanet/retina.py", "CL905"), ("./classes.json", "CL902")):
        leaf = project / "configs/coco/leaf.py"
        leaf.write_text(f"_base_ = ['{base}']\n" + CLEAN, encoding="utf-8")
        result = run_cli("check", "configs/coco/leaf.py", cwd=project)
        assert result.exit_code == 2, result.stdout + result.stderr
        assert code in result.stdout and "CL907" not in result.stdout


def test_force_exclude_applies_exclude_to_named_files(tmp_path: Path) -> None:
    root = _project(
        tmp_path / "project",
        {"configs/legacy/old.py": CLEAN.replace("device_ids=None", "device_ids=[0]")},
    )
    with (root / "pyproject.toml").open("a", encoding="utf-8") as settings:
        settings.write("exclude = ['configs/legacy']\n")
    # ruff's rule: a file named explicitly is checked whatever `exclude` says ...
    named = run_cli("check", "configs/legacy/old.py", cwd=root)
    assert named.exit_code == 1, named.stdout + named.stderr
    # ... unless --force-exclude, which hooks pass because pre-commit names every file.
    # Nothing is left to check: no success claim, a warning as ruff gives.
    for path in ("configs/legacy/old.py", "configs/legacy"):
        forced = run_cli("check", "--force-exclude", path, cwd=root)
        assert (forced.exit_code, forced.stdout) == (0, ""), forced.stderr
        assert forced.stderr == ("cfglint: warning: no config files found under the given paths\n")
