"""`cfglint check` through the real command line: output, exit codes, settings, suppression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT, run_cli, run_cli_on_a_terminal

# The two T20 configs are started by the launchers in scripts/: they are checked as the entry
# scripts hand them to the Runner (the first script overwrites model_wrapper_cfg without
# device_ids; the second calls init_dist itself; neither imports torch_gcu.transfer_to_gcu).
EXPECTED_EXAMPLES = [
    ("configs/_base_/default_runtime.py", 11, 21, "CL301"),
    ("configs/_base_/default_runtime.py", 13, 27, "CL101"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", 9, 16, "CL201"),
    ("configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", 10, 19, "CL202"),
    ("configs/gcu_smoke/toy_gcu_smoke.py", 1, 1, "CL201"),
    ("scripts/train_8card_gcu_v1.py", 9, 1, "CL401"),
    ("scripts/train_8card_gcu_v1.py", 32, 9, "CL102"),
    ("scripts/train_distributed_8card_gcu.py", 11, 1, "CL401"),
    ("scripts/train_distributed_8card_gcu.py", 45, 29, "CL201"),
]


@pytest.fixture()
def examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _diagnostic_lines(stdout: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in stdout.splitlines():
        if line[:1].isspace() or ": CL" not in line:
            continue
        location, rest = line.split(": ", 1)
        path, row, column = location.rsplit(":", 2)
        found.append((path, int(row), int(column), rest.split(" ", 1)[0]))
    return found


def test_examples_show_every_seed_failure_at_its_line(examples: Path) -> None:
    result = run_cli("check", ".", cwd=examples)
    assert result.exit_code == 1, result.stderr
    assert _diagnostic_lines(result.stdout) == EXPECTED_EXAMPLES
    # The CUDA config shares the base but is clean, and is named nowhere.
    assert "cuda/train_toy_cuda_8card.py" not in result.stdout
    assert "applies to 2 configs" in result.stdout
    assert result.stdout.endswith(
        "Found 9 errors on target t20-gcu.\n[*] 6 fixable with the `--fix` option (2 hidden "
        "fixes can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert result.stderr == ""


def test_json_output_lists_configs_and_targets(examples: Path) -> None:
    result = run_cli("check", "--output-format", "json", cwd=examples)
    assert result.exit_code == 1
    records = json.loads(result.stdout)
    assert [(r["code"], r["location"]["row"]) for r in records] == [
        (code, row) for _, row, _, code in EXPECTED_EXAMPLES
    ]
    backend = records[1]
    assert backend["filename"] == str(examples / "configs/_base_/default_runtime.py")
    assert backend["target"] == "t20-gcu"
    assert sorted(Path(p).name for p in backend["configs"]) == [
        "train_dinov3_mmrs1m_t20_gcu_8card.py",
        "train_dinov3_mmrs1m_t20_gcu_8card_ddp.py",
    ]
    assert backend["url"].endswith("/rules/CL101/")
    assert backend["end_location"] == {"row": 13, "column": 33}


def test_cli_target_beats_settings(examples: Path) -> None:
    cuda = run_cli("check", "--target", "cuda", "configs", cwd=examples)
    assert cuda.exit_code == 1
    # the first attempt pins device_ids=[0] for every rank; the ported smoke test uses gloo
    assert [(Path(d[0]).name, d[3]) for d in _diagnostic_lines(cuda.stdout)] == [
        ("train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", "CL203"),
        ("toy_gcu_smoke.py", "CL101"),
    ]
    clean = run_cli("check", "--target", "cuda", "configs/cuda", cwd=examples)
    assert clean.exit_code == 0
    assert "All checks passed!" in clean.stdout


def test_select_ignore_statistics_exit_zero(examples: Path) -> None:
    only_201 = run_cli("check", "--select", "CL2", "--ignore", "CL202", cwd=examples)
    assert {d[3] for d in _diagnostic_lines(only_201.stdout)} == {"CL201"}
    stats = run_cli("check", "--statistics", cwd=examples)
    assert stats.exit_code == 1
    rows = [line.split("\t") for line in stats.stdout.splitlines()]
    rows = [row for row in rows if row[0].strip().isdigit()]
    counts = {code: int(count) for count, code, *_ in rows}
    assert counts == {"CL101": 1, "CL102": 1, "CL201": 3, "CL202": 1, "CL301": 1, "CL401": 2}
    assert run_cli("check", "--exit-zero", cwd=examples).exit_code == 0
    assert run_cli("check", "--select", "XX1", cwd=examples).exit_code == 2


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_rule_selector_is_a_usage_error(examples: Path, option: str) -> None:
    result = run_cli("check", option, "CL999", cwd=examples)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"cfglint check: error: argument {option}: unknown rule selector `CL999` "
        "(`cfglint rule` lists the rules)\n"
    )
    # Anything that is not a code reads the same.
    assert run_cli("check", option, "XX1", cwd=examples).stderr == (
        f"cfglint check: error: argument {option}: unknown rule selector `XX1` "
        "(`cfglint rule` lists the rules)\n"
    )
    # Prefixes of real codes stay valid.
    for selector in ("CL2", "CL", "ALL", "cl20"):
        assert run_cli("check", option, selector, cwd=examples).exit_code in (0, 1)


def test_unknown_selector_in_settings_is_one_settings_error(examples: Path) -> None:
    settings = examples / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(
            'default-target = "cuda"', 'default-target = "cuda"\nignore = ["CL999"]'
        ),
        encoding="utf-8",
    )
    result = run_cli("check", cwd=examples)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"cfglint: error: {settings}: [tool.cfglint] ignore.0: unknown rule selector `CL999` "
        "(a code, a prefix such as CL2, or ALL)"
    ]


def test_statistics_as_json(examples: Path) -> None:
    result = run_cli("check", "--statistics", "--output-format", "json", cwd=examples)
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {"code": "CL201", "name": "ddp-device-ids", "count": 3, "fixable": True},
        {"code": "CL401", "name": "accelerator-not-seen", "count": 2, "fixable": False},
        {"code": "CL101", "name": "dist-backend", "count": 1, "fixable": True},
        {"code": "CL102", "name": "launcher-init-dist", "count": 1, "fixable": False},
        {"code": "CL202", "name": "ddp-output-device", "count": 1, "fixable": True},
        {"code": "CL301", "name": "cudnn-benchmark", "count": 1, "fixable": True},
    ]


def test_noqa_on_the_line_that_sets_the_value(examples: Path) -> None:
    base = examples / "configs/_base_/default_runtime.py"
    text = base.read_text(encoding="utf-8")
    base.write_text(
        text.replace(
            "cudnn_benchmark=True,", "cudnn_benchmark=True,  # cfglint: noqa: CL301"
        ).replace(
            "dist_cfg=dict(backend='nccl'),",
            "dist_cfg=dict(backend='nccl'),  # cfglint: noqa: CL999",
        ),
        encoding="utf-8",
    )
    codes = [d[3] for d in _diagnostic_lines(run_cli("check", cwd=examples).stdout)]
    assert "CL301" not in codes
    assert "CL101" in codes  # a noqa for another code does not hide it


def test_config_without_target_is_an_error_that_says_how(tmp_path: Path) -> None:
    for name in ("orphan.py", "orphan2.py"):
        (tmp_path / name).write_text("model = dict(type='X')\n", encoding="utf-8")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    # One line for every config without a target.
    assert result.stderr.splitlines() == [
        "cfglint: error: no target for 2 configs (orphan.py, orphan2.py): pass --target NAME, "
        "add `# cfglint: target=NAME` to the config, or set `default-target` "
        "(or a `targets` glob) under [tool.cfglint] in pyproject.toml; "
        "`cfglint targets` lists the names"
    ]
    alone = run_cli("check", "orphan.py", cwd=tmp_path)
    assert alone.stderr.splitlines()[0].endswith(
        "orphan.py: no target for this config: pass --target NAME, add "
        "`# cfglint: target=NAME` to the config, or set `default-target` "
        "(or a `targets` glob) under [tool.cfglint] in pyproject.toml; "
        "`cfglint targets` lists the names"
    )
    assert "Traceback" not in result.stderr
    # Nothing was checked: no "All checks passed!", and the reason for exit code 2.
    assert result.stdout == "Exit code 2: 1 error on stderr.\n"


def test_unknown_target_is_one_line_and_no_success_message(examples: Path) -> None:
    result = run_cli("check", "--target", "bogus", ".", cwd=examples)
    assert result.exit_code == 2
    assert result.stderr == (
        "cfglint: error: --target: unknown target 'bogus' (known: apple-mps, ascend-npu, "
        "cambricon-mlu, cpu, cuda, moore-threads-musa, t20-gcu)\n"
    )
    assert result.stdout == "Exit code 2: 1 error on stderr.\n"
    settings = examples / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace('"cuda"', '"cuda-typo"'), encoding="utf-8"
    )
    from_settings = run_cli("check", ".", cwd=examples)
    assert from_settings.exit_code == 2
    # The configs under the `targets` glob are still checked; the others name the settings line.
    assert from_settings.stderr == (
        f"cfglint: error: {settings}: [tool.cfglint] default-target: unknown target "
        "'cuda-typo' (known: apple-mps, ascend-npu, cambricon-mlu, cpu, cuda, "
        "moore-threads-musa, t20-gcu)\n"
    )
    assert "All checks passed!" not in from_settings.stdout
    assert "CL201" in from_settings.stdout


def test_nothing_to_check_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    empty = run_cli("check", "--target", "cuda", "empty", cwd=tmp_path)
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert empty.stderr == "cfglint: warning: no config files found under the given paths\n"
    (tmp_path / "tta.py").write_text("tta_model = dict(type='Tta')\n", encoding="utf-8")
    fragment = run_cli("check", "--target", "cuda", "tta.py", cwd=tmp_path)
    assert (fragment.exit_code, fragment.stdout) == (0, "")
    assert "no launchable config checked: every config found lacks `model`" in fragment.stderr


def test_bad_file_is_reported_and_the_run_goes_on(examples: Path) -> None:
    broken = examples / "configs/dinov3/broken.py"
    broken.write_text("model = dict(type='X'\n", encoding="utf-8")
    (examples / "configs/dinov3/latin1.py").write_bytes(
        "# caf\xe9\nmodel = dict(type='X')\n".encode("latin-1")
    )
    result = run_cli("check", cwd=examples)
    assert result.exit_code == 2
    codes = [(Path(d[0]).name, d[3]) for d in _diagnostic_lines(result.stdout)]
    assert ("broken.py", "CL901") in codes
    assert ("latin1.py", "CL902") in codes
    # the other configs were still checked
    assert ("train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", "CL202") in codes
    assert "Traceback" not in result.stderr


def test_base_file_named_alone_checks_its_inheritors(examples: Path) -> None:
    result = run_cli("check", "configs/_base_/default_runtime.py", cwd=examples)
    assert result.exit_code == 1
    lines = _diagnostic_lines(result.stdout)
    assert ("configs/_base_/default_runtime.py", 13, 27, "CL101") in lines
    assert any(d[0].endswith("toy_gcu_smoke.py") for d in lines)


def test_rule_command_explains_a_rule() -> None:
    result = run_cli("rule", "CL201")
    assert result.exit_code == 0
    assert result.stdout.startswith("# CL201 `ddp-device-ids`")
    assert "but got device_ids [0], output_device None" in result.stdout
    assert run_cli("rule", "CL999").exit_code == 2
    assert "# CL906" in run_cli("rule", "--all").stdout
    both = run_cli("rule", "--all", "CL201")
    assert (both.exit_code, both.stdout) == (2, "")
    assert both.stderr == "cfglint: error: give a rule code or --all, not both\n"


def test_bad_settings_table_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\ncfglint = 3\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("model = dict(type='M')\n", encoding="utf-8")
    result = run_cli("check", "a.py", "--target", "cuda", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"cfglint: error: {tmp_path / 'pyproject.toml'}: [tool.cfglint] must be a table, not int\n"
    )
    assert result.stdout == ""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


UNKNOWN_VALUES = (
    "import os\n"
    "model = dict(type='M')\n"
    "launcher = os.environ.get('L', 'pytorch')\n"
    "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(\n"
    "    type='MMDistributedDataParallel', device_ids=[int(os.environ['LOCAL_RANK'])])\n"
)


def test_a_cl906_follows_the_rule_that_needs_the_value(tmp_path: Path) -> None:
    _tree(tmp_path, {"leaf.py": UNKNOWN_VALUES})
    result = run_cli("check", "--target", "t20-gcu", "leaf.py", cwd=tmp_path)
    assert result.exit_code == 1
    # A list is non-empty whatever LOCAL_RANK is: CL201, not "cannot evaluate".
    assert _diagnostic_lines(result.stdout) == [
        ("leaf.py", 3, 12, "CL906"),
        ("leaf.py", 6, 50, "CL201"),
    ]
    assert (
        "leaf.py:3:12: CL906 cannot evaluate `os.environ.get('L', 'pytorch')` (call to "
        "`os.environ.get`, which cfglint does not run); CL102 needs `launcher`\n"
        "  see: cfglint rule CL906\n"
    ) in result.stdout
    for ignored in (("--ignore", "CL102"), ("--select", "CL2,CL906"), ("--ignore", "CL906")):
        quiet = run_cli("check", "--target", "t20-gcu", *ignored, "leaf.py", cwd=tmp_path)
        assert ("leaf.py", 3, 12, "CL906") not in _diagnostic_lines(quiet.stdout), ignored
    for noqa in ("CL102", "cl102", "CL906"):
        (tmp_path / "leaf.py").write_text(
            UNKNOWN_VALUES.replace("'pytorch')\n", f"'pytorch')  # cfglint: noqa: {noqa}\n"),
            encoding="utf-8",
        )
        suppressed = run_cli("check", "--target", "t20-gcu", "leaf.py", cwd=tmp_path)
        assert _diagnostic_lines(suppressed.stdout) == [("leaf.py", 6, 50, "CL201")], noqa
    # On CUDA a per-rank list is exactly what CL203 asks for.
    cuda = run_cli("check", "--target", "cuda", "--ignore", "CL101", "leaf.py", cwd=tmp_path)
    assert (cuda.exit_code, cuda.stdout) == (0, "All checks passed!\n")


def test_a_mistyped_noqa_is_reported_and_hides_nothing(tmp_path: Path) -> None:
    leaf = (
        "model = dict(type='M')\n"
        "env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))\n"
        "model_wrapper_cfg = dict(device_ids=None, output_device=1)  # cfglint: noqa: {}\n"
    )
    _tree(tmp_path, {"a.py": leaf.format("CL-202"), "b.py": leaf.format("cl202")})
    result = run_cli("check", "--target", "t20-gcu", ".", cwd=tmp_path)
    assert _diagnostic_lines(result.stdout) == [("a.py", 3, 57, "CL202")]
    assert result.stderr == (
        "cfglint: warning: a.py:3: invalid `# cfglint: noqa` directive: expected a "
        "comma-separated list of codes after `noqa:` (e.g. `# cfglint: noqa: CL201, CL202`); "
        "it suppresses nothing\n"
    )


def test_directives_only_in_comments_and_file_level_noqa(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "doc.py": '"""Ported config.\n\n# cfglint: target=cuda\n"""\n'
            "model = dict(type='M')\n",
            "filewide.py": (
                '"""A docstring on line 1 cannot hold a comment."""\n'
                "# cfglint: target=t20-gcu\n"
                "# cfglint: NOQA-FILE: CL201\n"
                "model = dict(type='M')\n"
                "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
            ),
        },
    )
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    assert _diagnostic_lines(result.stdout) == []
    assert "doc.py: no target for this config" in result.stderr
    assert "filewide.py" not in result.stderr


RUNTIME_FACTS = {
    # MMEngine: `if env_cfg.get('cudnn_benchmark')`.
    "cudnn_none.py": "env_cfg = dict(cudnn_benchmark=None, dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(device_ids=None)\n",
    "cudnn_zero.py": "env_cfg = dict(cudnn_benchmark=0, dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(device_ids=None)\n",
    # PyTorch's DDP: `if device_ids or output_device: raise ValueError`.
    "empty_ids.py": "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[])\n",
    "output_zero.py": "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(device_ids=None, output_device=0)\n",
    # FlexibleRunner never reads model_wrapper_cfg.
    "flexible.py": "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "runner_type = 'FlexibleRunner'\nstrategy = dict(type='FSDPStrategy')\n",
    # MMEngine decides issubclass(MyCustomDDP, DistributedDataParallel) at run time.
    "custom.py": "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(type='MyCustomDDP', find_unused_parameters=True)\n",
    "custom_none.py": "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
    "model_wrapper_cfg = dict(type='MyCustomDDP', device_ids=None)\n",
}


def test_rules_follow_what_mmengine_and_pytorch_do(tmp_path: Path) -> None:
    files = {name: "model = dict(type='M')\n" + text for name, text in RUNTIME_FACTS.items()}
    _tree(tmp_path, files)
    result = run_cli("check", "--target", "t20-gcu", ".", cwd=tmp_path)
    assert result.exit_code == 1
    assert _diagnostic_lines(result.stdout) == [
        ("custom.py", 3, 31, "CL906"),
        ("output_zero.py", 3, 57, "CL202"),
    ]
    assert "`MyCustomDDP` may subclass DDP and get device_ids=[LOCAL_RANK]" in result.stdout
    assert "names a GPU for a CPU model (DDP ignores a false one)" in result.stdout
    assert result.stdout.endswith(
        "Found 1 error and 1 warning on target t20-gcu.\n[*] 1 fixable with the `--fix` option.\n"
    )


def test_a_lazy_base_under_a_plain_config_is_an_mmengine_refusal(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "lazy_base.py": "from mmengine.config import read_base\n"
            "with read_base():\n    from .common import *\n",
            "common.py": "x = 1\n",
            "leaf.py": "_base_ = ['./lazy_base.py']\nmodel = dict(type='M')\n",
        },
    )
    result = run_cli("check", "--target", "cpu", "leaf.py", cwd=tmp_path)
    assert result.exit_code == 2
    assert _diagnostic_lines(result.stdout) == [("lazy_base.py", 1, 1, "CL905")]


def test_user_guide_first_run_is_the_real_output() -> None:
    guide = (REPO_ROOT / "docs/user-guide.md").read_text(encoding="utf-8")
    shown = guide.split("$ cfglint check examples/\n", 1)[1].split("```", 1)[0]
    result = run_cli("check", "examples/", cwd=REPO_ROOT)
    assert result.stdout == shown


def test_progress_is_drawn_on_a_terminal_and_never_in_the_redirected_report(
    tmp_path: Path,
) -> None:
    plain = run_cli("check", "examples/", cwd=REPO_ROOT)
    # A cached result is printed at once, with no bar: this is about a run that checks.
    exit_code, drawn, report = run_cli_on_a_terminal(
        "check", "--no-cache", "examples/", cwd=REPO_ROOT, stdout_file=tmp_path / "report.txt"
    )
    assert (exit_code, report) == (plain.exit_code, plain.stdout)
    assert "checking" in drawn
