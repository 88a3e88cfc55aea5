"""`cfglint show`: what a user sees (text, JSON, diagnostics, exit codes)."""

from __future__ import annotations

import json
import os
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
        f"target: t20-gcu (from {EXAMPLES / 'pyproject.toml'}: [tool.cfglint.targets] "
        "'configs/dinov3/**')\n"
        "env_cfg.dist_cfg.backend = 'nccl'\n"
        f"    set at {RUNTIME}:{line}\n"
        f"    via    {DINOV3} -> {RUNTIME}\n"
    )


def test_show_says_which_target_the_config_gets_and_why(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "cuda"\n', encoding="utf-8"
    )
    (tmp_path / "a.py").write_text("# cfglint: target=ascend-npu\nx = 1\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("x = 2\n", encoding="utf-8")
    shown = run_cli("show", "a.py", "b.py", cwd=tmp_path).stdout
    assert shown.splitlines() == [
        "# a.py",
        "target: ascend-npu (from a.py:1: `# cfglint: target=ascend-npu`)",
        "x = 1",
        "    set at a.py:2",
        "",
        "# b.py",
        f"target: cuda (from {tmp_path / 'pyproject.toml'}: [tool.cfglint] default-target)",
        "x = 2",
        "    set at b.py:1",
    ]
    flagged = run_cli("show", "--target", "apple-mps", "b.py", cwd=tmp_path).stdout
    assert flagged.splitlines()[0] == "target: apple-mps (from --target)"


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
    assert shown["env_cfg"]["value"] == {"dist_cfg": {"backend": {"$unknown": "os.environ['B']"}}}
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


def test_show_key_inside_an_unknown_value_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "c.py").write_text(
        "import os\nenv_cfg = os.environ.get('CFG')\n"
        "model = dict(pipeline=[dict(type='X', root=os.getcwd())])\n"
    )
    keys = ["env_cfg.dist_cfg.backend", "model.pipeline.0.root", "model.pipeline.0.type"]
    text = run_cli(
        "show", *(f"--key={key}" for key in keys), "--key=model.pipeline.3", "c.py", cwd=tmp_path
    )
    assert text.exit_code == 0, text.stderr
    assert text.stdout.splitlines() == [
        "env_cfg.dist_cfg.backend = <unknown: os.environ.get('CFG')>",
        "    unknown: call to `os.environ.get`, which cfglint does not run (`env_cfg` is unknown)",
        "    set at c.py:2",
        "model.pipeline.0.root = <unknown: os.getcwd()>",
        "    unknown: call to `os.getcwd`, which cfglint does not run",
        "    set at c.py:3",
        "model.pipeline.0.type = 'X'",
        "    set at c.py:3",
        "model.pipeline.3: not set",
    ]
    shown = json.loads(run_cli("show", "--json", "--key", keys[0], "c.py", cwd=tmp_path).stdout)
    entry = shown["c.py"][keys[0]]
    assert (entry["unknown"], entry["source"], entry["unknown_at"]) == (
        True,
        "os.environ.get('CFG')",
        "env_cfg",
    )
    assert entry["origin"] == {"path": "c.py", "line": 2, "column": 11}


def test_show_refuses_an_empty_key(tmp_path: Path) -> None:
    (tmp_path / "c.py").write_text("a = 1\n")
    for key in ("", "a..b", "."):
        result = run_cli("show", "--key", key, "c.py", cwd=tmp_path)
        assert result.exit_code == 2 and result.stdout == ""
        assert "argument --key: invalid key" in result.stderr


def test_show_env_placeholders_take_their_default_whatever_the_shell_says(tmp_path: Path) -> None:
    (tmp_path / "c.py").write_text(
        "data_root = '{{$DATA:/data}}' + '/coco'\n"
        "env_cfg = dict(dist_cfg=dict(backend='{{$BK:nccl}}'))\nplain = 1\n"
        "sizes = dict(a=[1, {{'$SIZES:{2:3}'}}])\n"
    )
    env = {**os.environ, "DATA": "/elsewhere", "BK": "gloo"}
    shown = json.loads(run_cli("show", "--json", "c.py", cwd=tmp_path, env=env).stdout)["c.py"]
    assert shown["data_root"]["value"] == "/data/coco"
    assert shown["data_root"]["env_dependent"] is True
    assert shown["env_cfg"]["value"] == {"dist_cfg": {"backend": "nccl"}}
    assert shown["env_cfg"]["env_dependent"] is True
    assert shown["env_cfg"]["env_dependent_keys"] == ["env_cfg.dist_cfg.backend"]
    assert "env_dependent" not in shown["plain"]
    # A value from a placeholder is named, not each item inside it.
    assert shown["sizes"]["env_dependent_keys"] == ["sizes.a.1"]
    text = run_cli("show", "c.py", cwd=tmp_path, env=env).stdout
    assert (
        "data_root = '/data/coco'\n    set at c.py:1  (from a {{$ENV:default}} placeholder" in text
    )
    assert "    env-dependent: env_cfg.dist_cfg.backend (from {{$ENV:default}}" in text


def test_show_prints_text_a_terminal_cannot_encode(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('{"a": "\\ud83d", "b": "\\ud83d\\ude00"}')
    shown = run_cli("show", "--json", "c.json", cwd=tmp_path)
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout)["c.json"]["a"]["value"] == "\ud83d"
    assert json.loads(shown.stdout)["c.json"]["b"]["value"] == "\U0001f600"
    text = run_cli("show", "c.json", cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    assert text.stdout.startswith("a = '\\ud83d'\n")
