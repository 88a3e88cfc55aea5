"""Words as bash expands them: variables, quotes, substitutions, what stays unresolved."""

from __future__ import annotations

import pytest
from launcher_project import Project

from cfglint.types import Launch


def test_variables_of_the_file_and_the_cfg_options_words(project: Project) -> None:
    launch = project.launch(
        """
        # the config to train
        CONFIG_FILE=configs/x.py
        export OMP_NUM_THREADS=1
        NAME=exp1; WORK=work_dirs/$NAME
        torchrun --nproc_per_node=8 tools/train.py "${CONFIG_FILE}" \\
            --work-dir "$WORK" --cfg-options model.a=1 'b=[1,2]' "c=d e" \\
            d=\\'x\\'  # trailing comment
        """
    )
    assert launch == Launch(
        entry=project.root / "tools/train.py",
        arguments=(
            "configs/x.py",
            "--work-dir",
            "work_dirs/exp1",
            "--cfg-options",
            "model.a=1",
            "b=[1,2]",
            "c=d e",
            "d='x'",
        ),
        cwd=project.root,
        runner="torchrun",
        nproc_per_node=8,
        environment={"OMP_NUM_THREADS": "1"},
        rank_variables=launch.rank_variables,
        source=project.span(5, 1, 7, 12),
    )


@pytest.mark.parametrize(
    ("assignments", "word", "expected"),
    [
        ("X=a", "$X", "a"),
        ("X=a", "${X}", "a"),
        ("X=a", '"${X}b"', "ab"),
        ("X=a", "pre/$X/post", "pre/a/post"),
        ("X=", "${X:-d}", "d"),
        ("X=", '"${X-d}"', ""),
        ("X=a", "${X:+set}", "set"),
        ("X=a.py", "${X%.py}", "a"),
        ("X=configs/a/b.py", "${X##*/}", "b.py"),
        ("X=configs/a/b.py", "${X#*/}", "a/b.py"),
        ("X=configs/a/b.py", "${X%/*}", "configs/a"),
        ("X=a-b-c", "${X//-/_}", "a_b_c"),
        ("X=a-b-c", "${X/-/_}", "a_b-c"),
        ("X=abcdef", "${X:2:3}", "cde"),
        ("X=abcdef", "${#X}", "6"),
        ("X=Ab", "${X^^}${X,,}", "ABab"),
        ("", "${Y:=d}$Y", "dd"),
        ("N=3", "$((N * 2 + 1))", "7"),
        ("N=3", "$[N+1]", "4"),
        ("", "$'a\\tb'", "a\tb"),
        ("", "\\$HOME", "$HOME"),
        ("", "'$HOME'", "$HOME"),
        ("", '"a\\"b\\\\c"', 'a"b\\c'),
        ("A=(x y z)", "${A[1]}", "y"),
        ("A=(x y z)", "${#A[@]}", "3"),
        ("", "$(basename configs/foo_bar.py .py)", "foo_bar"),
        ("", "$(basename -s .py a/b.py)", "b"),
        ("", "$(dirname configs/a/b.py)", "configs/a"),
        ("", "`echo hi`", "hi"),
        ("", '$(printf "%s-%d" a 3)', "a-3"),
        ("", "$(echo $(echo nested))", "nested"),
    ],
)
def test_expansions(project: Project, assignments: str, word: str, expected: str) -> None:
    launch = project.launch(f"{assignments}\npython train.py {word}\n")
    assert launch.arguments == (expected,)
    assert launch.unresolved == frozenset()


def test_script_folder_forms(project: Project) -> None:
    project.write("scripts/run.sh", "")
    result = project.read(
        """
        python $(dirname $0)/../train.py a
        python "$(dirname "$0")/../tools/train.py" b
        ROOT=$(cd "$(dirname "$0")/.." && pwd)
        python $ROOT/train.py c
        HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
        python "$HERE/../train.py" d
        python $(pwd)/train.py e
        """,
        name="scripts/run.sh",
    )
    assert [(launch.entry, launch.arguments) for launch in result.launches] == [
        (project.root / "train.py", ("a",)),
        (project.root / "tools/train.py", ("b",)),
        (project.root / "train.py", ("c",)),
        (project.root / "train.py", ("d",)),
        (project.root / "train.py", ("e",)),
    ]
    assert all(launch.notes == () for launch in result.launches)


def test_defaults_for_variables_the_file_does_not_set_are_taken_with_a_note(
    project: Project,
) -> None:
    launch = project.launch(
        "GPUS=${GPUS:-4}\n: ${PORT:=29500}\n"
        "torchrun --nproc_per_node=$GPUS --master_port=$PORT train.py\n"
    )
    assert launch.nproc_per_node == 4
    assert launch.notes == ("`$GPUS` is not set in the file: its default `4` is taken",)


def test_a_default_for_an_argument_not_known(project: Project) -> None:
    launch = project.launch("GPUS=${1:-8}\ntorchrun --nproc_per_node $GPUS train.py\n")
    assert launch.nproc_per_node == 8
    assert launch.notes == (
        "`$1`, the launcher's argument 1, is not known: its default `8` is taken",
    )
    launch = project.launch(
        "GPUS=${1:-8}\ntorchrun --nproc_per_node $GPUS train.py\n", arguments=["2"]
    )
    assert (launch.nproc_per_node, launch.notes) == (2, ())


def test_a_count_from_a_command_not_known(project: Project) -> None:
    launch = project.launch(
        "NGPUS=$(nvidia-smi -L | wc -l)\ntorchrun --nproc_per_node $NGPUS train.py\n"
    )
    assert launch.nproc_per_node is None
    assert launch.notes == (
        "`$NGPUS`: the output of `nvidia-smi -L | wc -l` is not known statically",
    )


def test_a_default_given_by_a_test_is_taken_too(project: Project) -> None:
    launch = project.launch(
        '[ -z "$CONFIG" ] && CONFIG=configs/default.py\npython train.py $CONFIG\n'
    )
    assert launch.arguments == ("configs/default.py",)
    assert launch.notes == (
        "`$CONFIG` is not set in the file: its default `configs/default.py` is taken",
    )


def test_words_not_known_keep_their_shell_text(project: Project) -> None:
    launch = project.launch(
        'python train.py $CONFIG --work-dir "${WORK_ROOT}/exp" --seed=$(date +%s) x\n'
    )
    assert launch.arguments == (
        "$CONFIG",
        "--work-dir",
        "${WORK_ROOT}/exp",
        "--seed=$(date +%s)",
        "x",
    )
    assert launch.unresolved == frozenset({0, 2, 3})
    assert launch.notes == (
        "argument 0 `$CONFIG` is not known statically: `$CONFIG` is set outside the file",
        "argument 2 `${WORK_ROOT}/exp` is not known statically: `$WORK_ROOT` is set outside the "
        "file",
        "argument 3 `--seed=$(date +%s)` is not known statically: the output of `date +%s` is "
        "not known statically",
    )


def test_words_that_may_be_many_words_are_left_out(project: Project) -> None:
    launch = project.launch(
        'PY_ARGS=${@:2}\npython train.py $1 $EXTRA_ARGS ${PY_ARGS} --last "$OPTS"\n'
    )
    assert launch.arguments == ("$1", "--last", "$OPTS")
    assert launch.unresolved == frozenset({0, 2})
    assert launch.notes == (
        "argument 0 `$1` is not known statically: `$1` is the launcher's argument 1: not known "
        "when the launcher is read on its own",
        "`$EXTRA_ARGS` is left out of the arguments: it may stand for any number of words "
        "(`$EXTRA_ARGS` is set outside the file)",
        "`${PY_ARGS}` is left out of the arguments: it may stand for any number of words "
        "(not known when the launcher is read on its own)",
        "argument 2 `$OPTS` is not known statically: `$OPTS` is set outside the file",
    )


def test_arguments_of_the_launcher(project: Project) -> None:
    text = 'CFG=$1\nshift\npython train.py "$CFG" --n=$# "$@" ${@:2} "$*"\n'
    launch = project.launch(text, arguments=["configs/a.py", "--x", "1 2", "y"])
    assert launch.arguments == (
        "configs/a.py",
        "--n=3",
        "--x",
        "1 2",
        "y",
        "1",
        "2",
        "y",
        "--x 1 2 y",
    )
    assert launch.unresolved == frozenset()


def test_slices_of_the_arguments(project: Project) -> None:
    arguments = [str(number) for number in range(1, 12)]
    launch = project.launch(
        'python train.py ${@:2:1} ${10} "${@: -2}" ${@:0:1}\n', arguments=arguments
    )
    assert launch.arguments == ("2", "10", "10", "11", "run.sh")


def test_set_dashdash_and_arrays(project: Project) -> None:
    launch = project.launch(
        """
        set -- configs/a.py
        ARGS=(--cfg-options "a=1 2")
        ARGS+=(b=3)
        python train.py "$1" "${ARGS[@]}" ${ARGS[*]}
        """
    )
    assert launch.arguments == (
        "configs/a.py", "--cfg-options", "a=1 2", "b=3", "--cfg-options", "a=1", "2", "b=3"
    )  # fmt: skip


def test_field_splitting_of_unquoted_variables(project: Project) -> None:
    launch = project.launch(
        'OPTS="--amp  --seed 1"\nEMPTY=\npython train.py $OPTS $EMPTY "$EMPTY" \'\'\n'
    )
    assert launch.arguments == ("--amp", "--seed", "1", "", "")


def test_brace_expansion_and_globs(project: Project) -> None:
    launch = project.launch("python train.py --gpus={0..3} cfg_{a,b}.py '*.py' data/*.json\n")
    assert launch.arguments == (
        "--gpus=0", "--gpus=1", "--gpus=2", "--gpus=3", "cfg_a.py", "cfg_b.py", "*.py",
        "data/*.json",
    )  # fmt: skip
    assert launch.notes == (
        "argument 7 `data/*.json` is a file name pattern: bash replaces it with the matching "
        "file names; kept as written",
    )


def test_prefix_assignments_and_exports(project: Project) -> None:
    launch = project.launch(
        """
        export NCCL_DEBUG=INFO
        export TOPS_VISIBLE_DEVICES
        set -a
        AUTO=1
        set +a
        LOCAL_ONLY=1
        CUDA_VISIBLE_DEVICES=0,1 PYTHONPATH=.:$PYTHONPATH torchrun --nproc_per_node=2 train.py
        """
    )
    assert dict(launch.environment) == {
        "NCCL_DEBUG": "INFO",
        "AUTO": "1",
        "CUDA_VISIBLE_DEVICES": "0,1",
        "PYTHONPATH": ".:$PYTHONPATH",
    }
    assert launch.notes == (
        "environment `PYTHONPATH=.:$PYTHONPATH`: `$PYTHONPATH` is set outside the file",
    )


def test_a_process_variable_set_without_export_is_noted(project: Project) -> None:
    launch = project.launch("CUDA_VISIBLE_DEVICES=0,1\npython train.py\n")
    assert launch.environment == {}
    assert launch.notes == (
        "`CUDA_VISIBLE_DEVICES` is set at line 1 but not exported: the process sees it only if "
        "the environment already had it",
    )


def test_operators_pipes_and_redirections(project: Project) -> None:
    result = project.read(
        """
        mkdir -p logs; python train.py a > logs/a.log 2>&1 && echo done || echo failed
        python train.py b 2>>err.log | tee logs/b.log &
        nohup python train.py c >/dev/null 2>&1 &
        python train.py d |& tee -a log; python train.py e
        """
    )
    assert [launch.arguments for launch in result.launches] == [
        ("a",), ("b",), ("c",), ("d",), ("e",)
    ]  # fmt: skip
    # A command's span holds its redirections and wrappers, not the rest of its line.
    assert [launch.source for launch in result.launches] == [
        project.span(1, 16, 1, 51),
        project.span(2, 1, 2, 29),
        project.span(3, 1, 3, 40),
        project.span(4, 1, 4, 18),
        project.span(4, 34, 4, 51),
    ]


def test_line_continuations_and_the_span_of_a_command(project: Project) -> None:
    launch = project.launch(
        "echo start\nCUDA_VISIBLE_DEVICES=0 \\\n  python \\\n  train.py \\\n  a # done\necho end\n"
    )
    assert launch.arguments == ("a",)
    assert launch.source == project.span(2, 1, 5, 4)


def test_cd_moves_the_working_folder(project: Project) -> None:
    project.write("sub/train.py", "")
    result = project.read(
        """
        cd sub
        python train.py a
        (cd .. && python train.py b)
        python ../train.py c
        pushd /opt >/dev/null; popd
        cd $SOMEWHERE
        python train.py d
        """
    )
    sub = project.root / "sub"
    assert [(launch.cwd, launch.entry) for launch in result.launches] == [
        (sub, sub / "train.py"),
        (project.root, project.root / "train.py"),
        (sub, project.root / "train.py"),
        (sub, sub / "train.py"),
    ]
    assert result.launches[3].notes == (
        "the working folder is not known: `cd $SOMEWHERE` (`$SOMEWHERE` is set outside the file)",
    )


def test_the_entry_is_looked_for_in_the_working_folder_then_beside_the_launcher(
    project: Project,
) -> None:
    project.write("scripts/local_train.py", "")
    result = project.read("python local_train.py\npython missing.py\n", name="scripts/start.sh")
    assert [launch.entry for launch in result.launches] == [
        project.root / "scripts/local_train.py",
        project.root / "missing.py",
    ]
    assert result.launches[0].notes == (
        f"the entry script `local_train.py` is not in the working folder {project.root}; the "
        "one beside the launcher is taken",
    )
    assert result.launches[1].notes == (
        f"the entry script `missing.py` does not exist ({project.root / 'missing.py'})",
    )


def test_an_entry_not_known_is_reported_with_a_note(project: Project) -> None:
    launch = project.launch("torchrun --nproc_per_node=2 $SCRIPT c.py\n")
    assert launch.entry == project.root / "$SCRIPT"
    assert launch.notes == (
        "the entry script `$SCRIPT` is not known statically: `$SCRIPT` is set outside the file",
    )


def test_a_home_folder_is_not_known(project: Project) -> None:
    launch = project.launch("python train.py --data ~/data\n")
    assert (launch.arguments, launch.unresolved) == (("--data", "~/data"), frozenset({1}))
