"""Launchers calling launchers: arguments bound, `via` lines, `source`, guards against loops,
and the files a reading may touch."""

from __future__ import annotations

import os

import pytest
from launcher_project import Project

from cfglint.launch.shell.runner_options import TORCH_RANK_VARIABLES
from cfglint.types import Launch, LauncherNote

# The shape of OpenMMLab's tools/dist_train.sh (the real files are read by the corpus test).
DIST_TRAIN = """\
#!/usr/bin/env bash
CONFIG=$1
GPUS=$2
NNODES=${NNODES:-1}
PORT=${PORT:-29500}

PYTHONPATH="$(dirname $0)/..":$PYTHONPATH \\
python -m torch.distributed.launch \\
    --nnodes=$NNODES \\
    --nproc_per_node=$GPUS \\
    --master_port=$PORT \\
    $(dirname "$0")/train.py \\
    $CONFIG \\
    --launcher pytorch ${@:3}
"""


@pytest.fixture
def tools(project: Project) -> Project:
    project.write("tools/dist_train.sh", DIST_TRAIN)
    return project


def test_a_user_launcher_calling_dist_train_exactly(tools: Project) -> None:
    launch = tools.launch("bash tools/dist_train.sh configs/x.py 8 --cfg-options a=1\n")
    assert launch == Launch(
        entry=tools.root / "tools/train.py",
        arguments=("configs/x.py", "--launcher", "pytorch", "--cfg-options", "a=1"),
        cwd=tools.root,
        runner="torch.distributed.launch",
        nproc_per_node=8,
        nnodes=1,
        environment={"PYTHONPATH": "tools/..:$PYTHONPATH"},
        rank_variables=TORCH_RANK_VARIABLES,
        passes_local_rank=True,
        source=tools.span(7, 1, 14, 30, name="tools/dist_train.sh"),
        via=(tools.span(1, 1, 1, 58),),
        notes=(
            "environment `PYTHONPATH=tools/..:$PYTHONPATH`: `$PYTHONPATH` is set outside the file",
            "`$NNODES` is not set in the file: its default `1` is taken",
        ),
    )


@pytest.mark.parametrize(
    "call",
    [
        "bash tools/dist_train.sh",
        "sh tools/dist_train.sh",
        "bash -x ./tools/dist_train.sh",
        "./tools/dist_train.sh",
        "tools/dist_train.sh",
        "bash $(dirname $0)/tools/dist_train.sh",
        'bash "$(cd "$(dirname "$0")" && pwd)/tools/dist_train.sh"',
        "nohup bash tools/dist_train.sh",
    ],
)
def test_call_forms(tools: Project, call: str) -> None:
    launch = tools.launch(f"{call} configs/x.py 4 --amp > train.log 2>&1\n")
    assert launch.entry == tools.root / "tools/train.py"
    assert launch.arguments == ("configs/x.py", "--launcher", "pytorch", "--amp")
    assert (launch.nproc_per_node, launch.passes_local_rank) == (4, True)
    assert launch.via == (tools.span(1, 1, 1, len(call) + 39),)


def test_exported_variables_reach_the_called_launcher(tools: Project) -> None:
    result = tools.read(
        """
        export NNODES=2
        PORT=1234  # not exported: the called launcher takes its own default
        GPUS=8 bash tools/dist_train.sh configs/x.py 8
        """
    )
    launch = result.launches[0]
    assert (launch.nnodes, launch.environment) == (
        2,
        {"NNODES": "2", "GPUS": "8", "PYTHONPATH": "tools/..:$PYTHONPATH"},
    )
    assert "`$PORT` is not set in the file: its default `29500` is taken" not in launch.notes


def test_the_launcher_read_on_its_own_leaves_its_arguments_open(tools: Project) -> None:
    result = tools.read(DIST_TRAIN, name="tools/dist_train.sh")
    launch = result.launches[0]
    assert launch.arguments == ("$CONFIG", "--launcher", "pytorch")
    assert launch.unresolved == frozenset({0})
    assert (launch.nproc_per_node, launch.via) == (None, ())
    assert launch.notes == (
        "`--nproc_per_node=$GPUS`: `$2` is the launcher's argument 2: not known when the "
        "launcher is read on its own",
        "argument 0 `$CONFIG` is not known statically: `$1` is the launcher's argument 1: not "
        "known when the launcher is read on its own",
        "`${@:3}` is left out of the arguments: it may stand for any number of words (not known "
        "when the launcher is read on its own)",
        "environment `PYTHONPATH=tools/..:$PYTHONPATH`: `$PYTHONPATH` is set outside the file",
        "`$NNODES` is not set in the file: its default `1` is taken",
    )


def test_a_launcher_given_its_arguments(tools: Project) -> None:
    result = tools.read(DIST_TRAIN, name="tools/dist_train.sh", arguments=["c.py", "2", "--x"])
    assert result.launches[0].arguments == ("c.py", "--launcher", "pytorch", "--x")


def test_arguments_not_known_in_the_call_stay_open_in_the_callee(tools: Project) -> None:
    launch = tools.launch('bash tools/dist_train.sh "$1" 8 $EXTRA_ARGS --late\n')
    # The word keeps the text written in the command that starts Python.
    assert launch.arguments == ("$CONFIG", "--launcher", "pytorch")
    assert launch.unresolved == frozenset({0})
    assert launch.notes[1] == (
        "`${@:3}` is left out of the arguments: it may stand for any number of words (not known "
        "from `$EXTRA_ARGS` on in the call)"
    )


def test_nested_launchers_and_sourced_files(tools: Project) -> None:
    tools.write("scripts/env.sh", "export NNODES=1\nCFG=configs/from_env.py\n")
    tools.write(
        "scripts/inner.sh",
        'source scripts/env.sh\n. ./scripts/env.sh\nbash tools/dist_train.sh $CFG 2 "$@"\n',
    )
    result = tools.read("bash scripts/inner.sh --resume\n")
    launch = result.launches[0]
    assert launch.arguments == ("configs/from_env.py", "--launcher", "pytorch", "--resume")
    assert launch.via == (
        tools.span(1, 1, 1, 31),
        tools.span(3, 1, 3, 37, name="scripts/inner.sh"),
    )
    assert result.files == (
        tools.root / "run.sh",
        tools.root / "scripts/inner.sh",
        tools.root / "scripts/env.sh",
        tools.root / "tools/dist_train.sh",
    )


def test_a_launcher_calling_itself_is_followed_once(project: Project) -> None:
    project.write("a.sh", "python train.py a\nbash b.sh\n")
    project.write("b.sh", "python train.py b\nbash a.sh\n")
    result = project.read("bash a.sh\nbash run.sh\n")
    assert [launch.arguments for launch in result.launches] == [("a",), ("b",)]
    assert [(note.span.path.name, note.message) for note in result.notes] == [
        ("b.sh", "`a.sh` calls itself: not followed again"),
        ("run.sh", "`run.sh` calls itself: not followed again"),
    ]


def test_launchers_nest_only_so_deep(project: Project) -> None:
    for level in range(12):
        project.write(f"l{level}.sh", f"python train.py {level}\nbash l{level + 1}.sh\n")
    result = project.read("bash l0.sh\n")
    assert len(result.launches) == 8
    assert result.notes[-1].message == "`l8.sh`: launchers nested too deeply to follow"


def test_launchers_that_cannot_be_followed_are_notes(
    project: Project, tmp_path: os.PathLike[str]
) -> None:
    outside = project.root.parent / "outside.sh"
    outside.write_text("python train.py secret\n")
    os.mkfifo(project.root / "fifo.sh")
    project.write("tools/folder.sh/keep", "")
    result = project.read(
        f"bash missing.sh\nbash {outside}\nsource ~/.bashrc\nbash fifo.sh\nbash tools/folder.sh\n"
        "bash $LAUNCHER\n"
    )
    assert result.launches == ()
    assert result.notes == (
        LauncherNote(
            project.span(1, 1, 1, 16), "the launcher `missing.sh` does not exist: not followed"
        ),
        LauncherNote(
            project.span(2, 1, 2, 6 + len(str(outside))),
            f"the launcher `{outside}` is outside the project: not read",
        ),
        LauncherNote(
            project.span(3, 1, 3, 17),
            "the launcher `~/.bashrc` is not known statically (`~` is a home folder, not known "
            "statically): not followed",
        ),
        LauncherNote(
            project.span(4, 1, 4, 13), "the launcher `fifo.sh` is not a regular file: not followed"
        ),
        LauncherNote(
            project.span(5, 1, 5, 21),
            "the launcher `tools/folder.sh` is not a regular file: not followed",
        ),
        LauncherNote(
            project.span(6, 1, 6, 15),
            "the launcher `$LAUNCHER` is not known statically (`$LAUNCHER` is set outside the "
            "file): not followed",
        ),
    )
    assert result.files == (project.root / "run.sh",)


def test_a_launcher_found_beside_the_calling_one(project: Project) -> None:
    project.write("scripts/helper.sh", "python train.py helped\n")
    result = project.read("bash helper.sh\n", name="scripts/start.sh")
    assert [launch.arguments for launch in result.launches] == [("helped",)]
    assert [note.message for note in result.notes] == [
        f"`helper.sh` is not in the working folder {project.root}; the one beside the launcher "
        "is followed"
    ]


def test_a_launcher_like_our_users_own(project: Project) -> None:
    project.write("scripts/train_distributed_8card_gcu.py", "")
    text = """\
        #!/bin/bash
        # 8卡T20 GCU分布式训练启动脚本
        set -e
        export PYTHONPATH=$PYTHONPATH:$(pwd)
        export TOPS_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
        CONFIG_FILE="configs/train_dinov3_mmrs1m_t20_gcu_8card.py"
        WORK_DIR="./work_dirs/dinov3_mmrs1m_t20_gcu_8card"
        mkdir -p $WORK_DIR/logs
        echo "🚀 启动8卡分布式训练..."
        if [ ! -f "$CONFIG_FILE" ]; then
            echo "❌ 配置文件不存在: $CONFIG_FILE"
            exit 1
        fi
        python3 -m torch.distributed.launch \\
            --nproc_per_node=8 \\
            --master_port=29500 \\
            scripts/train_distributed_8card_gcu.py \\
            $CONFIG_FILE \\
            --launcher pytorch \\
            --work-dir $WORK_DIR 2>&1 | tee $WORK_DIR/logs/train.log
        """
    launch = project.launch(text, name="scripts/start_8card_training.sh")
    assert launch == Launch(
        entry=project.root / "scripts/train_distributed_8card_gcu.py",
        arguments=(
            "configs/train_dinov3_mmrs1m_t20_gcu_8card.py",
            "--launcher",
            "pytorch",
            "--work-dir",
            "./work_dirs/dinov3_mmrs1m_t20_gcu_8card",
        ),
        cwd=project.root,
        runner="torch.distributed.launch",
        nproc_per_node=8,
        nnodes=1,
        environment={
            "PYTHONPATH": f"$PYTHONPATH:{project.root}",
            "TOPS_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
        },
        rank_variables=TORCH_RANK_VARIABLES,
        passes_local_rank=True,
        source=project.span(14, 1, 20, 30, name="scripts/start_8card_training.sh"),
        notes=(
            f"environment `PYTHONPATH=$PYTHONPATH:{project.root}`: `$PYTHONPATH` is set outside "
            "the file",
        ),
    )
