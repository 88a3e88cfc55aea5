"""Loops: one process per rank in the background, iterations run one by one, open counts."""

from __future__ import annotations

import pytest
from launcher_project import Project

from cfglint.types import Launch


def test_a_loop_starting_one_process_per_rank_exactly(project: Project) -> None:
    launch = project.launch(
        """
        export MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 WORLD_SIZE=8
        for i in $(seq 0 7); do
          RANK=$i LOCAL_RANK=$i python train.py configs/x.py --launcher pytorch &
        done
        wait
        """
    )
    assert launch == Launch(
        entry=project.root / "train.py",
        arguments=("configs/x.py", "--launcher", "pytorch"),
        cwd=project.root,
        runner="loop",
        nproc_per_node=8,
        nnodes=1,
        environment={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "WORLD_SIZE": "8"},
        rank_variables=frozenset({"RANK", "LOCAL_RANK"}),
        source=project.span(3, 3, 3, 72),
        notes=("one process per value of `$i` (0 to 7), started in the background",),
    )


@pytest.mark.parametrize(
    "loop",
    [
        "for i in $(seq 0 3); do\n  RANK=$i python train.py c.py &\ndone",
        "for ((i=0; i<4; i++)); do\n  RANK=$i python train.py c.py &\ndone",
        "for (( i = 0 ; i < N ; ++i )); do\n  RANK=$i python train.py c.py &\ndone",
        "for i in 0 1 2 3; do\n  RANK=$i python train.py c.py &\ndone",
        "for i in {0..3}; do\n  RANK=$i python train.py c.py &\ndone",
        "i=0\nwhile [ $i -lt 4 ]; do\n  RANK=$i python train.py c.py &\n  i=$((i+1))\ndone",
        "i=0\nwhile (( i < N )); do\n  RANK=$i python train.py c.py &\n  ((i++))\ndone",
        "i=0\nuntil [ $i -ge 4 ]; do\n  RANK=$i python train.py c.py &\n  let i+=1\ndone",
        "for i in $(seq 0 $((N - 1))); do\n  RANK=$i python train.py c.py &\ndone",
    ],
)
def test_loop_forms(project: Project, loop: str) -> None:
    launch = project.launch(f"N=4\n{loop}\nwait\n")
    assert (launch.runner, launch.nproc_per_node, launch.nnodes) == ("loop", 4, 1)
    assert launch.rank_variables == frozenset({"RANK"})
    assert launch.arguments == ("c.py",)


def test_a_loop_counted_with_a_default_says_so(project: Project) -> None:
    for loop in ("for ((i=0; i<GPUS; i++))", "for i in $(seq 0 $((GPUS - 1)))"):
        launch = project.launch(f"GPUS=${{GPUS:-4}}\n{loop}; do RANK=$i python train.py & done\n")
        assert (launch.runner, launch.nproc_per_node) == ("loop", 4)
        assert launch.notes == (
            "one process per value of `$i` (0 to 3), started in the background",
            "`$GPUS` is not set in the file: its default `4` is taken",
        ), loop


def test_per_rank_values_in_the_arguments_are_unresolved(project: Project) -> None:
    launch = project.launch(
        """
        for ((r=0; r<2; r++)); do
          export CUDA_VISIBLE_DEVICES=$r
          nohup python train.py c.py --local_rank=$r --gpu $r > log_$r.txt 2>&1 &
        done
        """
    )
    assert launch.arguments == ("c.py", "--local_rank=$r", "--gpu", "$r")
    assert launch.unresolved == frozenset({1, 3})
    assert launch.rank_variables == frozenset({"CUDA_VISIBLE_DEVICES"})
    assert launch.environment == {}
    assert launch.notes == (
        "argument 1 `--local_rank=$r` differs from process to process",
        "argument 3 `$r` differs from process to process",
        "one process per value of `$r` (0 1), started in the background",
    )


def test_a_derived_rank_is_a_rank_variable(project: Project) -> None:
    launch = project.launch(
        """
        NODE_RANK=1
        for LOCAL in 0 1 2 3; do
          RANK=$((NODE_RANK * 4 + LOCAL)) LOCAL_RANK=$LOCAL WORLD_SIZE=8 python train.py &
        done
        """
    )
    assert launch.rank_variables == frozenset({"RANK", "LOCAL_RANK"})
    assert launch.environment == {"WORLD_SIZE": "8"}
    assert launch.nproc_per_node == 4


def test_a_loop_whose_count_is_not_known(project: Project) -> None:
    launch = project.launch(
        "for i in $(seq 0 $((NGPUS-1))); do\n  RANK=$i python train.py &\ndone\n"
    )
    assert (launch.runner, launch.nproc_per_node) == ("loop", None)
    assert launch.notes == (
        "one process per value of `$i` (values not known), started in the background",
        "the number of processes is not known: the output of `seq 0 $((NGPUS-1))` (`NGPUS` is "
        "not set in the file) is not known statically",
    )


def test_a_loop_of_separate_runs_gives_one_launch_per_iteration(project: Project) -> None:
    result = project.read(
        """
        for cfg in configs/a.py configs/b.py; do
          python train.py $cfg
        done
        for seed in 0 1; do python train.py c.py --seed $seed & done
        """
    )
    assert [(launch.runner, launch.arguments) for launch in result.launches] == [
        ("python", ("configs/a.py",)),
        ("python", ("configs/b.py",)),
        ("python", ("c.py", "--seed", "0")),
        ("python", ("c.py", "--seed", "1")),
    ]
    assert all(launch.notes == () for launch in result.launches)


def test_a_loop_that_may_run_any_number_of_times(project: Project) -> None:
    result = project.read(
        """
        while true; do
          python train.py c.py --resume
          sleep 60
        done
        for f in $(ls configs); do python train.py $f; done
        """
    )
    assert [(launch.arguments, launch.unresolved) for launch in result.launches] == [
        (("c.py", "--resume"), frozenset()),
        (("$f",), frozenset({0})),
    ]
    assert result.launches[0].notes == (
        "started in the loop `while true` (line 1): maybe several times, maybe never",
    )
    assert result.launches[1].notes[-1] == (
        "started in the loop over `$f` (line 5): maybe several times, maybe never"
    )


def test_a_long_loop_is_read_once(project: Project) -> None:
    launch = project.launch("for i in $(seq 1 100); do python train.py --seed $i; done\n")
    assert launch.arguments == ("--seed", "$i")
    assert launch.notes[-1] == "started in the loop over `$i` (line 1), 100 times"


def test_the_state_after_a_loop(project: Project) -> None:
    launch = project.launch(
        """
        N=0
        for i in 1 2 3; do N=$((N + i)); done
        python train.py --n $N --i $i
        """
    )
    assert launch.arguments == ("--n", "6", "--i", "3")
