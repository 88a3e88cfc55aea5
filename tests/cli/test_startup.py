"""Instant start: a command imports only what it needs. `cfglint --version`, `--help` and a
cached `check` (the pre-commit hook's usual run) never import the pipeline, rich or libcst; no
command imports Pydantic, and a check whose targets are all shipped imports no YAML parser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES

from cfglint import __version__

HEAVY = (
    "cfglint.loader",
    "cfglint.engine",
    "cfglint.launch",
    "cfglint.rules",
    "cfglint.settings",
    "cfglint.report",
    "libcst",
    "rich",
    "pydantic",
    "ruamel",
    "yaml",
)

# The command line in a fresh interpreter; then the heavy modules it imported, one a line.
_PROBE = """
import sys
from cfglint.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
heavy = {heavy!r}
print("\\n".join(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy
      or any(m.startswith(h + ".") for h in heavy)), file=sys.stderr)
"""


def heavy_imports(*args: str, cwd: Path | None = None) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=HEAVY), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return [line for line in completed.stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("args", [("--version",), ("-V",), ("check", "--help"), ("fix", "--help")])
def test_version_and_help_import_nothing_heavy(args: tuple[str, ...]) -> None:
    assert heavy_imports(*args) == []


def test_a_cached_check_imports_nothing_heavy(tmp_path: Path) -> None:
    tree = tmp_path / "examples"
    shutil.copytree(EXAMPLES, tree, ignore=shutil.ignore_patterns(".cfglint_cache"))
    first = heavy_imports("check", cwd=tree)
    assert "cfglint.loader" in first and "cfglint.engine.run" in first  # it did check
    assert heavy_imports("check", cwd=tree) == []


def test_the_version_is_printed() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "cfglint", "--version"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert (completed.returncode, completed.stdout) == (0, f"cfglint {__version__}\n")


def test_the_light_format_list_is_the_reports() -> None:
    from cfglint.cli.common import OUTPUT_FORMATS
    from cfglint.report import FORMATS

    assert OUTPUT_FORMATS == FORMATS


def test_a_check_imports_only_what_the_project_needs(tmp_path: Path) -> None:
    """A project without launchers never imports the shell simulator or the entry-script
    interpreter; a report that is not coloured never imports rich; nothing that is not fixed
    imports libcst; a text report whose fixes each config's own check placed in the config
    (its `[*]` marks) imports no fix planning."""
    (tmp_path / "pyproject.toml").write_text('[tool.cfglint]\ndefault-target = "t20-gcu"\n')
    (tmp_path / "a.py").write_text("model = dict(type='Toy')\n", encoding="utf-8")
    imported = heavy_imports("check", "--no-cache", "a.py", cwd=tmp_path)
    assert "cfglint.engine.run" in imported  # it did check
    assert "cfglint.engine.fix_marks" in imported  # and marked its fixable finding
    unneeded = (
        "cfglint.launch.shell",
        "cfglint.launch.explore",
        "cfglint.engine.fixes",
        "cfglint.engine.fix_plan",
        "cfglint.engine.placement",
        "rich",
        "libcst",
    )
    assert [m for m in imported if m.split(".")[0] in unneeded or m.startswith(unneeded)] == []


def test_a_check_on_a_shipped_target_imports_no_yaml_parser_nor_pydantic(tmp_path: Path) -> None:
    """Settings and target files are read without Pydantic; the shipped target files from their
    parsed copy, schemas/prepared.json (ruamel.yaml is for a project's own target files and for
    fixing YAML, PyYAML for a shipped file changed since its copy was written)."""
    (tmp_path / "pyproject.toml").write_text('[tool.cfglint]\ndefault-target = "t20-gcu"\n')
    (tmp_path / "a.py").write_text("model = dict(type='Toy')\n", encoding="utf-8")
    imported = heavy_imports("check", "--no-cache", "a.py", cwd=tmp_path)
    assert "cfglint.engine.run" in imported and "cfglint.settings" in imported  # it did check
    assert [m for m in imported if m.split(".")[0] in ("pydantic", "ruamel", "yaml")] == []


def test_a_report_with_edits_imports_libcst_without_its_matchers(tmp_path: Path) -> None:
    """Importing `libcst.matchers` builds a class for every node kind (about half a second):
    the editor matches nodes with isinstance instead."""
    (tmp_path / "pyproject.toml").write_text('[tool.cfglint]\ndefault-target = "t20-gcu"\n')
    (tmp_path / "a.py").write_text("model = dict(type='Toy')\n", encoding="utf-8")
    imported = heavy_imports("check", "--no-cache", "--output-format", "json", "a.py", cwd=tmp_path)
    assert "libcst" in imported  # it planned the fixes' edits
    assert [name for name in imported if name.startswith("libcst.matchers")] == []
