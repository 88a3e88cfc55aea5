"""`cfglint show`: what a user sees (text, JSON, diagnostics, exit codes)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import EXAMPLES, REPO_ROOT, run_cli

DINOV3 = "examples/configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py"
RUNTIME = "examples/configs/_base_/default_runtime.py"


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_show_names_the_base_file_and_line_that_set_the_backend() -> None:
    result = run_cli("show", "--key", "env_cfg.dist_cfg.backend", DINOV3, cwd=REPO_ROOT)
    line = _line_of(EXAMPLES / "configs/_base_/default_runtime.py", "backend='nccl'")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "env_cfg.dist_cfg.backend = 'nccl'\n"
        f"    set at {RUNTIME}:{line}\n"
        f"    via    {DINOV3} -> {RUNTIME}\n"
    )


def test_show_json_shape(tmp_path: Path) -> None:
    base = tmp_path / "base.py"
    base.write_text("model = dict(type='M', sizes=(1, 2))\nlr = 0.1\n")
    leaf = tmp_path / "leaf.py"
    leaf.write_text(
        "_base_ = './base.py'\nimport os\nlr = 0.02\n"
        "env_cfg = dict(dist_cfg=dict(backend=os.environ['B']))\nwork = os.getcwd()\n"
    )
    result = run_cli(
        "show",
        "--json",
        "--key",
        "lr",
        "--key",
        "model",
        "--key",
        "nope",
        "--key",
        "env_cfg",
        "--key",
        "work",
        "leaf.py",
        cwd=tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    shown = json.loads(result.stdout)["leaf.py"]
    assert shown["lr"] == {
        "value": 0.02,
        "origin": {"path": "leaf.py", "line": 3, "column": 6},
        "chain": ["leaf.py"],
    }
    assert shown["model"]["value"] == {"type": "M", "sizes": [1, 2]}
    assert shown["model"]["chain"] == ["leaf.py", "base.py"]
    assert shown["nope"] is None
    assert shown["work"]["unknown"] is True
    assert shown["work"]["source"] == "os.getcwd()"
    assert "value" not in shown["work"]
    assert shown["env_cfg"]["value"] == {"dist_cfg": {"backend": None}}
    (inner,) = shown["env_cfg"]["unknowns"]
    assert inner["key"] == "env_cfg.dist_cfg.backend"
    assert inner["source"] == "os.environ['B']"
    assert inner["origin"] == {"path": "leaf.py", "line": 4, "column": 38}
    assert inner["reason"]


def test_show_all_top_level_keys_in_text(tmp_path: Path) -> None:
    (tmp_path / "c.py").write_text("a = 1\nb = 'x' * 300\nimport os\nc = os.sep.join([])\n")
    result = run_cli("show", "c.py", cwd=tmp_path)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0:2] == ["a = 1", "    set at c.py:1"]
    assert lines[2].startswith("b = 'xxxx") and "..." in lines[2]
    assert len(lines[2]) <= 4 + 160


def test_show_bad_file_reports_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("x = (\n")
    (tmp_path / "good.py").write_text("y = 2\n")
    result = run_cli("show", "bad.py", "good.py", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith("bad.py:1:5: CL901 syntax error:")
    assert result.stdout == "# good.py\ny = 2\n    set at good.py:1\n"


def test_show_never_executes_the_config(tmp_path: Path) -> None:
    (tmp_path / "evil.py").write_text("open('pwned.txt', 'w').write('x')\nmodel = dict(type='M')\n")
    result = run_cli("show", "--key", "model.type", "evil.py", cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stdout.startswith("model.type = 'M'\n")
    assert not (tmp_path / "pwned.txt").exists()


def test_show_missing_config_is_a_diagnostic(tmp_path: Path) -> None:
    result = run_cli("show", "nothere.py", cwd=tmp_path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "nothere.py:1:1: CL902 file not found\n"
