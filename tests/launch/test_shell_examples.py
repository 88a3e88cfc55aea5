"""The team's own launchers in examples/scripts, read from the examples' project root."""

from __future__ import annotations

from helpers import EXAMPLES

from cfglint.launch.shell import read_launcher
from cfglint.launch.shell.runner_options import TORCH_RANK_VARIABLES
from cfglint.types import Launch, LauncherFile, Span

NOTE = "environment `PYTHONPATH=.:$PYTHONPATH`: `$PYTHONPATH` is set outside the file"


def _read(name: str) -> LauncherFile:
    result = read_launcher(EXAMPLES / "scripts" / name, cwd=EXAMPLES)
    assert (result.problems, result.notes) == ((), ())
    return result


def test_the_torchrun_launcher() -> None:
    launcher = EXAMPLES / "scripts/start_8card_training.sh"
    assert _read(launcher.name).launches == (
        Launch(
            entry=EXAMPLES / "scripts/train_distributed_8card_gcu.py",
            arguments=(
                "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py",
                "--launcher",
                "pytorch",
                "--work-dir",
                "./work_dirs/dinov3_mmrs1m_t20_gcu_8card",
            ),
            cwd=EXAMPLES,
            runner="torchrun",
            nproc_per_node=8,
            nnodes=1,
            environment={"PYTHONPATH": ".:$PYTHONPATH"},
            rank_variables=TORCH_RANK_VARIABLES,
            source=Span(launcher, 8, 1, 11, 9),
            notes=(NOTE,),
        ),
    )


def test_the_first_launcher_through_torch_distributed_launch() -> None:
    [launch] = _read("start_8card_training_v1.sh").launches
    assert launch.entry == EXAMPLES / "scripts/train_8card_gcu_v1.py"
    assert launch.arguments == (
        "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py",
        "--launcher",
        "pytorch",
    )
    assert (launch.runner, launch.nproc_per_node, launch.passes_local_rank) == (
        "torch.distributed.launch",
        8,
        True,
    )
    assert launch.notes == (NOTE,)
