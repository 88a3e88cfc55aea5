"""The programs that start Python: torchrun, torch.distributed.launch, python, srun, mpirun,
and the wrappers around them; and the commands that are not launches."""

from __future__ import annotations

import pytest
from launcher_project import Project

from cfglint.launch.shell.runner_options import (
    MPI_RANK_VARIABLES,
    SRUN_RANK_VARIABLES,
    TORCH_RANK_VARIABLES,
)
from cfglint.types import Launch


def test_torchrun_launch_exactly(project: Project) -> None:
    launch = project.launch(
        "torchrun --nproc_per_node=8 tools/train.py configs/x.py --launcher pytorch\n"
    )
    assert launch == Launch(
        entry=project.root / "tools/train.py",
        arguments=("configs/x.py", "--launcher", "pytorch"),
        cwd=project.root,
        runner="torchrun",
        nproc_per_node=8,
        nnodes=1,
        rank_variables=TORCH_RANK_VARIABLES,
        source=project.span(1, 1, 1, 75),
    )


@pytest.mark.parametrize(
    ("options", "nproc", "nnodes"),
    [
        ("--nproc-per-node 4", 4, 1),
        ("--nproc_per_node 4 --nnodes 2", 4, 2),
        ("--nnodes=2 --nproc-per-node=4 --node_rank=1 --master_addr=10.0.0.1", 4, 2),
        ("--standalone --nproc_per_node=2", 2, 1),
        ("--master_port 29501 --rdzv-backend=c10d --rdzv-endpoint=host:29400", 1, 1),
        ("--nnodes=2:2 --nproc_per_node=8", 8, 2),
        ("--nproc 4", 4, 1),  # argparse takes a unique prefix
        ("--max-restarts 3 -r 3 -t 3 --log-dir logs --nproc_per_node=2", 2, 1),
    ],
)
def test_torchrun_counts(project: Project, options: str, nproc: int, nnodes: int) -> None:
    launch = project.launch(f"torchrun {options} train.py configs/x.py\n")
    assert (launch.runner, launch.nproc_per_node, launch.nnodes) == ("torchrun", nproc, nnodes)
    assert launch.entry == project.root / "train.py"
    assert launch.arguments == ("configs/x.py",)
    assert launch.notes == ()


def test_torchrun_device_count_and_elastic_nodes_are_left_open(project: Project) -> None:
    launch = project.launch("torchrun --nnodes=1:4 --nproc_per_node=gpu train.py c.py\n")
    assert (launch.nproc_per_node, launch.nnodes, launch.world_size) == (None, None, None)
    assert launch.notes == (
        "`--nproc_per_node=gpu`: one process per device, counted on the host at run time",
        "`--nnodes=1:4`: elastic, between 1 and 4 nodes",
    )


def test_torchrun_module_entry_is_a_note(project: Project) -> None:
    result = project.read("torchrun --nproc_per_node=8 -m mmdet.train c.py\n")
    assert result.launches == ()
    assert [(note.span.line, note.message) for note in result.notes] == [
        (1, "`torchrun -m mmdet.train` runs a module: cfglint follows entry scripts, not modules")
    ]


@pytest.mark.parametrize(
    ("command", "runner", "passes_local_rank"),
    [
        ("python -m torch.distributed.launch", "torch.distributed.launch", True),
        ("python -m torch.distributed.launch --use_env", "torch.distributed.launch", False),
        ("python3 -m torch.distributed.launch --use-env", "torch.distributed.launch", False),
        ("python -u -m torch.distributed.launch", "torch.distributed.launch", True),
        ("python -mtorch.distributed.launch", "torch.distributed.launch", True),
        ("python -m torch.distributed.run", "torchrun", False),
    ],
)
def test_python_m_torch_distributed(
    project: Project, command: str, runner: str, passes_local_rank: bool
) -> None:
    launch = project.launch(f"{command} --nproc_per_node=2 --master_port=1234 train.py c.py\n")
    assert launch.runner == runner
    assert launch.passes_local_rank is passes_local_rank
    assert (launch.nproc_per_node, launch.arguments) == (2, ("c.py",))
    assert launch.rank_variables == TORCH_RANK_VARIABLES


@pytest.mark.parametrize(
    "interpreter",
    [
        "python",
        "python3",
        "python3.8",
        "python3.10",
        "/usr/bin/python3",
        "/opt/conda/envs/mm/bin/python",
        "${PYTHON:-python}",
        "python -u",
        "python -W ignore",
        "python -Wignore::DeprecationWarning",
        "python -X dev -B",
        "python -uB",
        "python -O --",
    ],
)
def test_python_interpreters(project: Project, interpreter: str) -> None:
    launch = project.launch(f"{interpreter} train.py configs/x.py --amp\n")
    assert launch == Launch(
        entry=project.root / "train.py",
        arguments=("configs/x.py", "--amp"),
        cwd=project.root,
        runner="python",
        source=launch.source,
    )


def test_an_interpreter_set_outside_the_file_is_taken_with_a_note(project: Project) -> None:
    launch = project.launch("$PYTHON train.py c.py\n")
    assert (launch.runner, launch.arguments) == ("python", ("c.py",))
    assert launch.notes == (
        "`$PYTHON` is taken as a Python interpreter (`$PYTHON` is set outside the file)",
    )


@pytest.mark.parametrize(
    "command",
    [
        "echo python train.py",
        "mkdir -p work_dirs",
        "pip install -r requirements.txt",
        "nvidia-smi",
        "python -c 'import torch; print(torch.__version__)'",
        "python -m pip install mmengine",
        "python3 -m venv .venv",
        "python --version",
        "python",
        "python - <<'EOF'\nprint(1)\nEOF",
        "command -v python",
        "cat train.py",
    ],
)
def test_commands_that_are_not_launches(project: Project, command: str) -> None:
    result = project.read(command + "\n")
    assert (result.launches, result.notes, result.problems) == ((), (), ())


def test_a_module_entry_is_a_note(project: Project) -> None:
    result = project.read("echo start\npython -m mmdet.tools.train configs/x.py\n")
    assert result.launches == ()
    assert [(note.span, note.message) for note in result.notes] == [
        (
            project.span(2, 1, 2, 41),
            "`python -m mmdet.tools.train` runs a module: cfglint follows entry scripts, not "
            "modules",
        )
    ]


def test_srun_counts_and_rank_variables(project: Project) -> None:
    launch = project.launch(
        "srun -p dev --job-name=x -N 2 --ntasks-per-node=8 --gres=gpu:8 --kill-on-bad-exit=1 \\\n"
        "    python -u tools/train.py configs/x.py --launcher=slurm\n"
    )
    assert launch == Launch(
        entry=project.root / "tools/train.py",
        arguments=("configs/x.py", "--launcher=slurm"),
        cwd=project.root,
        runner="srun",
        nproc_per_node=8,
        nnodes=2,
        rank_variables=SRUN_RANK_VARIABLES,
        source=project.span(1, 1, 2, 59),
    )


@pytest.mark.parametrize(
    ("options", "nproc", "nnodes"),
    [
        ("--ntasks=16 --ntasks-per-node=8", 8, 2),
        ("-n16 -N2", 8, 2),
        ("--nodes=4", 1, 4),
        ("--ntasks-per-node 4", 4, 1),
    ],
)
def test_srun_spreads(project: Project, options: str, nproc: int, nnodes: int) -> None:
    launch = project.launch(f"srun {options} python train.py\n")
    assert (launch.nproc_per_node, launch.nnodes) == (nproc, nnodes)


def test_srun_without_a_per_node_count_says_so(project: Project) -> None:
    launch = project.launch("srun -n 8 python train.py\n")
    assert (launch.nproc_per_node, launch.nnodes) == (None, None)
    assert launch.notes == ("`8` processes in all; how many per node depends on the allocation",)


def test_srun_inherits_the_sbatch_lines(project: Project) -> None:
    launch = project.launch(
        """
        #!/bin/bash
        #SBATCH --nodes=2
        #SBATCH --ntasks-per-node=4  # one per GPU
        #SBATCH --gres=gpu:4
        srun --chdir=tools python train.py ../configs/x.py
        """
    )
    assert (launch.runner, launch.nproc_per_node, launch.nnodes) == ("srun", 4, 2)
    assert launch.cwd == project.root / "tools"
    assert launch.entry == project.root / "tools/train.py"


def test_srun_starting_torchrun_keeps_torchrun(project: Project) -> None:
    launch = project.launch(
        "srun -N 2 --ntasks-per-node=1 torchrun --nnodes=2 --nproc_per_node=8 train.py c.py\n"
    )
    assert (launch.runner, launch.nproc_per_node, launch.nnodes) == ("torchrun", 8, 2)
    assert launch.notes == ("`srun` starts `torchrun` on each of its tasks",)


@pytest.mark.parametrize(
    ("options", "nproc", "nnodes"),
    [
        ("-np 8", 8, 1),
        ("-n 4 --allow-run-as-root --bind-to none", 4, 1),
        ("-np 16 -H node1:8,node2:8", 8, 2),
        ("-np 8 -npernode 4", 4, 2),
        ("--np 8 --map-by ppr:2:node", 2, 4),
        ("-np 8 -mca btl ^openib --oversubscribe", 8, 1),
    ],
)
def test_mpirun_counts(project: Project, options: str, nproc: int, nnodes: int) -> None:
    launch = project.launch(f"mpirun {options} python train.py c.py --launcher mpi\n")
    assert (launch.runner, launch.nproc_per_node, launch.nnodes) == ("mpirun", nproc, nnodes)
    assert launch.arguments == ("c.py", "--launcher", "mpi")
    assert launch.rank_variables == MPI_RANK_VARIABLES


def test_mpirun_exports_variables(project: Project) -> None:
    launch = project.launch(
        "mpiexec -np 2 -x NCCL_DEBUG=INFO -genv OMP_NUM_THREADS 4 python train.py\n"
    )
    assert dict(launch.environment) == {"NCCL_DEBUG": "INFO", "OMP_NUM_THREADS": "4"}


@pytest.mark.parametrize(
    "wrapper",
    [
        "nohup",
        "time",
        "time -p",
        "command",
        "nice -n 10",
        "timeout 12h",
        "timeout -s INT 3600",
        "stdbuf -oL",
        "numactl --cpunodebind=0 --membind=0",
        "numactl -N 0 -m 0",
        "taskset -c 0-7",
        "env",
        "nohup env nice",
    ],
)
def test_wrappers(project: Project, wrapper: str) -> None:
    launch = project.launch(f"{wrapper} torchrun --nproc_per_node=2 train.py c.py\n")
    assert (launch.runner, launch.nproc_per_node, launch.arguments) == ("torchrun", 2, ("c.py",))


def test_env_sets_variables_for_the_command(project: Project) -> None:
    launch = project.launch("export KEEP=1 DROP=2\nenv -u DROP X=1 PYTHONPATH=. python train.py\n")
    assert dict(launch.environment) == {"KEEP": "1", "X": "1", "PYTHONPATH": "."}
    launch = project.launch("export KEEP=1\nenv -i X=1 python train.py\n")
    assert dict(launch.environment) == {"X": "1"}


def test_exec_ends_the_launcher(project: Project) -> None:
    result = project.read("exec > log.txt 2>&1\nexec python train.py a\npython train.py b\n")
    assert [launch.arguments for launch in result.launches] == [("a",)]


def test_a_script_run_directly(project: Project) -> None:
    launch = project.launch("./tools/train.py configs/x.py\n")
    assert (launch.runner, launch.entry) == ("python", project.root / "tools/train.py")
    assert launch.notes == (
        "`./tools/train.py` is run as a program: its `#!` line picks the interpreter",
    )


def test_other_launchers_are_notes(project: Project) -> None:
    result = project.read(
        "deepspeed --num_gpus 8 train.py --deepspeed ds.json\n"
        "mim train mmdet configs/x.py --launcher pytorch -G 8\n"
        "mim install mmdet\n"
    )
    assert result.launches == ()
    assert [note.message for note in result.notes] == [
        "`deepspeed` (DeepSpeed's launcher) is not read by cfglint",
        "`mim` (OpenMMLab's `mim`) is not read by cfglint",
    ]
