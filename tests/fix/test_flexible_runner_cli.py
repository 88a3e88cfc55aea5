"""FlexibleRunner configs: a DDPStrategy wraps the model as the Runner does, so CL201 and CL202
check `strategy.model_wrapper` and the fix writes it there."""

from __future__ import annotations

from pathlib import Path

from helpers import mmengine_values, run_cli
from project_tree import write_tree

HEAD = (
    "runner_type = 'FlexibleRunner'\n"
    "model = dict(type='M')\n"
    "env_cfg = dict(dist_cfg=dict(backend='gloo'))\n"
)


def test_strategies_are_checked_and_fixed_where_the_strategy_reads_them(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".git/HEAD": "",
            "configs/no_strategy.py": HEAD,
            "configs/ddp.py": HEAD + "strategy = dict(type='DDPStrategy')\n",
            "configs/ddp_out.py": HEAD + "strategy = dict(\n"
            "    type='DDPStrategy', model_wrapper=dict(device_ids=None, output_device=1))\n",
            "configs/fsdp.py": HEAD + "strategy = dict(type='FSDPStrategy')\n",
        },
    )
    check = run_cli("check", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert check.exit_code == 1
    located = [line.split(" [*] ")[0] for line in check.stdout.splitlines() if " [*] " in line]
    assert located == [
        "configs/ddp.py:4:12: CL201",
        "configs/ddp_out.py:5:75: CL202",
        "configs/no_strategy.py:1:1: CL201",
    ]
    assert "no `strategy.model_wrapper`: DDPStrategy's default wrap gets device_ids=" in (
        check.stdout
    )
    fixed = run_cli("fix", "--target", "t20-gcu", "configs", cwd=tmp_path)
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "configs/no_strategy.py").read_text() == (
        HEAD + "\n"
        "strategy = dict(\n"
        "    type='DDPStrategy',\n"
        "    model_wrapper=dict(type='MMDistributedDataParallel', broadcast_buffers=False, "
        "device_ids=None),\n"
        ")\n"
    )
    keys = (
        "strategy.type",
        "strategy.model_wrapper.device_ids",
        "strategy.model_wrapper.output_device",
    )
    for name in ("no_strategy.py", "ddp.py", "ddp_out.py"):
        values = mmengine_values(tmp_path / "configs" / name, *keys)
        assert values[:2] == ["DDPStrategy", None], name
        assert values[2] in (None, "absent"), name
    assert (tmp_path / "configs/fsdp.py").read_text() == (
        HEAD + "strategy = dict(type='FSDPStrategy')\n"
    )
