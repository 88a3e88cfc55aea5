"""`cfglint check --entry`: configs checked as the entry script hands them to the Runner.

Run in-process through `cfglint.cli.main`, the code path of the `cfglint` command.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from cfglint.cli import main
from cfglint.types import Launch

CLEAN_CONFIG = """\
model = dict(type='ToyClassifier')
env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
"""

HEAD = """\
import argparse

import torch.distributed as dist
from mmengine.config import Config, DictAction
from mmengine.runner import Runner


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    parser.add_argument('--launcher', choices=['none', 'pytorch'], default='none')
    parser.add_argument('--cfg-options', nargs='+', action=DictAction)
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    cfg.launcher = args.launcher
    if args.cfg_options is not None:
        cfg.merge_from_dict(args.cfg_options)
"""

TAIL = """\
    if not dist.is_initialized():
        dist.init_process_group(backend='gloo')
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
"""


def _project(tmp_path: Path, body: str, config: str = CLEAN_CONFIG) -> Path:
    (tmp_path / "configs").mkdir(parents=True)
    (tmp_path / "configs" / "leaf.py").write_text(config, encoding="utf-8")
    script = HEAD + textwrap.indent(textwrap.dedent(body), "    ") + TAIL
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    return tmp_path


def _check(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *extra: str,
    target: str = "cpu",
) -> tuple[int, str]:
    monkeypatch.chdir(project)
    code = main(["check", "--target", target, "--entry", "train.py", *extra, "configs/leaf.py"])
    return code, capsys.readouterr().out


def _line_of(project: Path, text: str) -> int:
    lines = (project / "train.py").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_script_override_without_device_ids_is_cl201_at_the_script_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(
        tmp_path,
        "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', broadcast_buffers=False)\n",
    )
    code, out = _check(project, capsys, monkeypatch)
    line = _line_of(project, "cfg.model_wrapper_cfg =")
    assert code == 1
    assert (
        f"train.py:{line}:29: CL201 [*] `model_wrapper_cfg` leaves out `device_ids`"
        in out
    )
    assert "configs/leaf.py:" not in out.split("= applies to")[0]


def test_the_same_config_checked_alone_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n")
    monkeypatch.chdir(project)
    assert main(["check", "--target", "cpu", "configs/leaf.py"]) == 0
    assert "All checks passed!" in capsys.readouterr().out


def test_a_later_assignment_on_every_path_makes_it_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(
        tmp_path,
        """\
        cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')
        if args.launcher == 'pytorch':
            cfg.model_wrapper_cfg.device_ids = None
        else:
            cfg.model_wrapper_cfg['device_ids'] = None
        """,
    )
    code, out = _check(project, capsys, monkeypatch, "--entry-args", "--launcher pytorch")
    assert code == 0, out
    assert "All checks passed!" in out


def test_an_override_inside_an_undecidable_branch_carries_its_condition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(
        tmp_path,
        """\
        import os
        if os.environ.get('USE_FAST_DDP') == '1':
            cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])
        """,
    )
    code, out = _check(project, capsys, monkeypatch)
    line = _line_of(project, "device_ids=[0]")
    assert code == 1
    assert f"train.py:{line}:" in out
    assert "(when `os.environ.get('USE_FAST_DDP') == '1'`)" in out


def test_init_dist_in_the_script_is_cl102_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(
        tmp_path,
        """\
        from mmengine.dist import init_dist
        if cfg.get('launcher', 'none') == 'pytorch':
            init_dist(launcher='pytorch', backend=cfg.env_cfg.dist_cfg.get('backend', 'eccl'))
        """,
    )
    code, out = _check(project, capsys, monkeypatch, "--entry-args", "--launcher pytorch")
    line = _line_of(project, "init_dist(launcher=")
    assert code == 1
    assert (
        f"train.py:{line}:9: CL102 `init_dist(launcher='pytorch')`: its torch.cuda.set_device fails"
        in out
    )
    # With the default launcher 'none' the branch is not taken: nothing to report.
    code, out = _check(project, capsys, monkeypatch)
    assert code == 0, out


def test_launcher_from_the_arguments_is_cl102_unless_the_group_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n")
    script = project / "train.py"
    script.write_text(
        script.read_text(encoding="utf-8").replace(
            "    if not dist.is_initialized():\n        dist.init_process_group(backend='gloo')\n",
            "",
        ),
        encoding="utf-8",
    )
    code, out = _check(project, capsys, monkeypatch, "--entry-args", "--launcher pytorch")
    assert code == 1
    line = _line_of(project, "cfg.launcher = args.launcher")
    assert f"train.py:{line}:20: CL102 `launcher='pytorch'`" in out


def test_cfg_options_from_the_command_line_reach_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n")
    code, out = _check(
        project,
        capsys,
        monkeypatch,
        "--entry-args",
        "--cfg-options env_cfg.cudnn_benchmark=True model_wrapper_cfg.device_ids=[0]",
    )
    assert code == 1
    assert "CL301" in out and "CL201" in out


GCU_SCRIPT_WITH_IMPORT = """\
try:
    import torch_gcu  # noqa: F401
    from torch_gcu import transfer_to_gcu  # noqa: F401
except ImportError:
    torch_gcu = None
"""


def test_cpu_training_rule_fires_without_the_vendor_import_and_not_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n")
    code, out = _check(project, capsys, monkeypatch, target="t20-gcu")
    line = _line_of(project, "from mmengine.config import")
    assert code == 1
    assert (
        f"train.py:{line}:1: CL401 no `torch_gcu.transfer_to_gcu` import before mmengine: "
        "MMEngine resolves `cpu` and trains there"
    ) in out
    script = project / "train.py"
    script.write_text(GCU_SCRIPT_WITH_IMPORT + script.read_text(encoding="utf-8"), encoding="utf-8")
    code, out = _check(project, capsys, monkeypatch, target="t20-gcu")
    assert code == 0, out


def test_with_the_vendor_import_cuda_style_values_are_right(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once MMEngine sees the GCU, device_ids=[LOCAL_RANK] (left to MMEngine) is right."""
    project = _project(
        tmp_path,
        "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n",
        config=(
            "model = dict(type='ToyClassifier')\nenv_cfg = dict(dist_cfg=dict(backend='eccl'))\n"
        ),
    )
    script = project / "train.py"
    script.write_text(GCU_SCRIPT_WITH_IMPORT + script.read_text(encoding="utf-8"), encoding="utf-8")
    code, out = _check(
        project, capsys, monkeypatch, "--entry-args", "--launcher pytorch", target="t20-gcu"
    )
    assert code == 0, out


def test_unsafe_fix_adds_the_vendor_import_where_it_belongs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n")
    script = project / "train.py"
    guarded = "try:\n    import torch_gcu\nexcept ImportError:\n    torch_gcu = None\n"
    script.write_text(guarded + script.read_text(encoding="utf-8"), encoding="utf-8")
    before = script.read_text(encoding="utf-8")
    code, out = _check(project, capsys, monkeypatch, "--fix", target="t20-gcu")
    assert code == 1 and "CL401" in out  # unsafe: not applied without --unsafe-fixes
    assert script.read_text(encoding="utf-8") == before
    code, out = _check(project, capsys, monkeypatch, "--fix", "--unsafe-fixes", target="t20-gcu")
    assert code == 0, out
    assert script.read_text(encoding="utf-8") == before.replace(
        "    import torch_gcu\n",
        "    import torch_gcu\n    from torch_gcu import transfer_to_gcu  # noqa: F401\n",
    )


def test_fix_edits_the_script_not_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n")
    config_before = (project / "configs" / "leaf.py").read_bytes()
    code, out = _check(project, capsys, monkeypatch, "--fix")
    assert code == 0, out
    assert (project / "configs" / "leaf.py").read_bytes() == config_before
    assert "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)\n" in (
        project / "train.py"
    ).read_text(encoding="utf-8")
    # Placing it in the config instead cannot work: the script runs after the config.
    project2 = _project(
        tmp_path / "other", "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n"
    )
    code, out = _check(project2, capsys, monkeypatch, "--fix", "--fix-placement", "leaf")
    assert code == 1
    assert "CL201" in out


def test_argparse_rejecting_the_launch_is_reported_where_it_parses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n")
    code, out = _check(project, capsys, monkeypatch, "--entry-args", "--launcher slurm")
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "CL905 the launch stops before the Runner: argparse rejects the launch's arguments"
        in out + err
    )
    assert "invalid choice: 'slurm'" in out + err


def test_a_fix_on_a_path_the_check_does_not_keep_lands_in_the_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first path skips the override; the fix is found and placed through the other one."""
    project = _project(
        tmp_path,
        """\
        import os
        if os.environ.get('KEEP_WRAPPER'):
            pass
        else:
            cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])
        """,
    )
    code, out = _check(project, capsys, monkeypatch, "--fix")
    assert code == 0, out
    assert "dict(type='MMDistributedDataParallel', device_ids=None)" in (
        project / "train.py"
    ).read_text(encoding="utf-8")


def test_a_shell_launcher_is_resolved_and_its_launch_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`CONFIG_FILE=...` and `--launcher pytorch` in the launcher; no process group in the
    script: MMEngine's init_dist runs, CL102 at the line that sets the launcher."""
    project = _project(tmp_path, "pass\n")
    script = project / "train.py"
    script.write_text(
        script.read_text(encoding="utf-8").replace(
            "    if not dist.is_initialized():\n        dist.init_process_group(backend='gloo')\n",
            "",
        ),
        encoding="utf-8",
    )
    (project / "start.sh").write_text(
        "#!/usr/bin/env bash\n"
        "CONFIG_FILE=configs/leaf.py\n"
        "export PYTHONPATH=.:$PYTHONPATH\n"
        "torchrun --nproc_per_node=8 train.py $CONFIG_FILE \\\n"
        "    --launcher pytorch 2>&1 | tee train.log\n",
        encoding="utf-8",
    )
    # The project is the settings' folder (without settings: the git work tree).
    (project / "pyproject.toml").write_text("[tool.cfglint]\n", encoding="utf-8")
    monkeypatch.chdir(project)
    code = main(["check", "--target", "cpu", "start.sh"])
    out = capsys.readouterr().out
    line = _line_of(project, "cfg.launcher = args.launcher")
    assert code == 1
    assert f"train.py:{line}:20: CL102 `launcher='pytorch'`" in out
    assert "= applies to 1 config: configs/leaf.py" in out
    # The config alone (no launcher named, but the project's launcher starts it): the same.
    code = main(["check", "--target", "cpu", "configs/leaf.py"])
    assert code == 1 and f"train.py:{line}:20: CL102" in capsys.readouterr().out


def test_where_the_vendor_facts_are_uncertain_the_message_says_what_it_assumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, "pass\n", config="model = dict(type='ToyClassifier')\n")
    script = project / "train.py"
    script.write_text(GCU_SCRIPT_WITH_IMPORT + script.read_text(encoding="utf-8"), encoding="utf-8")
    code, out = _check(project, capsys, monkeypatch, target="t20-gcu")
    assert code == 1
    assert (
        "CL101 [*] `env_cfg.dist_cfg.backend` is absent: MMEngine's init_dist uses 'nccl'" in out
    ) or "CL101" in out
    assert "(assuming torch_gcu.transfer_to_gcu does not turn `nccl` into `eccl`)" in out
    assert "CL201" not in out  # device_ids=[LOCAL_RANK] is right on the GCU


def test_a_bug_in_one_launch_is_an_internal_error_for_it_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cfglint.launch.explore as launches  # imported by the check only when it has launches

    project = _project(tmp_path, "pass\n")
    (project / "configs" / "other.py").write_text(
        "model = dict(type='X')\nenv_cfg = dict(cudnn_benchmark=True)\n", encoding="utf-8"
    )

    real_explore = launches.explore

    def broken(launch: Launch, *args: Any, **kwargs: Any) -> object:
        if launch.arguments[0].endswith("leaf.py"):
            raise RuntimeError("a bug in the launch view")
        return real_explore(launch, *args, **kwargs)

    monkeypatch.setattr(launches, "explore", broken)
    monkeypatch.chdir(project)
    code = main(["check", "--target", "cpu", "--entry", "train.py", "configs/"])
    captured = capsys.readouterr()
    assert code == 2
    assert "cfglint: internal error in train.py: RuntimeError: a bug in the launch view" in (
        captured.err
    )
    assert "CL9" not in captured.out  # not disguised as a finding
    # The other config's launch is still checked, in the same run.
    assert "configs/other.py:2:32: CL301" in captured.out


def test_a_config_the_script_makes_unknown_is_said_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code cfglint does not follow writes keys it cannot name: nothing passes silently."""
    project = _project(
        tmp_path,
        """\
        from mytools import overrides
        for key, value in overrides().items():
            cfg[key] = value
        """,
    )
    code, out = _check(project, capsys, monkeypatch)
    line = _line_of(project, "runner = Runner.from_cfg(cfg)")
    assert code == 1
    assert f"train.py:{line}:14: CL906 the config this launch hands to the Runner cannot be " in out
    assert "the launch is not checked" in out


def test_entry_points_in_the_settings_launch_every_config_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(
        tmp_path,
        "cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel')\n",
    )
    (project / "configs" / "second.py").write_text(CLEAN_CONFIG, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "cpu"\nentry-points = ["train.py --launcher pytorch"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(project)
    code = main(["check", "."])
    out = capsys.readouterr().out
    line = _line_of(project, "cfg.model_wrapper_cfg =")
    assert code == 1
    assert (
        f"train.py:{line}:29: CL201 [*] `model_wrapper_cfg` leaves out `device_ids`"
    ) in out
    assert "= applies to 2 configs: configs/leaf.py, configs/second.py" in out
    assert "train.py:1:1" not in out  # the entry script is never checked as a config
