"""Conditions, `case`, functions, here-documents, exits and syntax errors in launchers."""

from __future__ import annotations

from launcher_project import Project

from cfglint.types import LoadProblem


def test_an_if_not_decided_gives_each_branch_with_its_condition(project: Project) -> None:
    result = project.read(
        """
        if [ -f /data/ready ]; then
          torchrun --nproc_per_node=8 train.py big.py
        elif [ "$MODE" = small ]; then
          python train.py small.py
        else
          echo "nothing to do"; exit 1
        fi
        python train.py after.py
        """
    )
    assert [(launch.arguments, launch.notes) for launch in result.launches] == [
        (("big.py",), ("runs only if `[ -f /data/ready ]` succeeds",)),
        (
            ("small.py",),
            (
                "runs only if `[ -f /data/ready ]` fails",
                'runs only if `[ "$MODE" = small ]` succeeds',
            ),
        ),
        (("after.py",), ()),
    ]


def test_an_if_decided_by_known_values_gives_its_branch(project: Project) -> None:
    result = project.read(
        """
        GPUS=8
        if [ "$GPUS" -gt 1 ] && [[ $GPUS == [0-9]* ]]; then
          torchrun --nproc_per_node=$GPUS train.py c.py
        else
          python train.py c.py
        fi
        if (( GPUS < 2 )); then python train.py never.py; fi
        if ! test -z "$GPUS"; then python train.py yes.py; fi
        """
    )
    assert [(launch.runner, launch.arguments) for launch in result.launches] == [
        ("torchrun", ("c.py",)),
        ("python", ("yes.py",)),
    ]
    assert all(launch.notes == () for launch in result.launches)


def test_a_default_taken_does_not_decide_a_branch(project: Project) -> None:
    # The environment may set GPUS=1: both commands are possible launches.
    result = project.read(
        """
        GPUS=${GPUS:-8}
        if [ "$GPUS" -gt 1 ]; then
          torchrun --nproc_per_node=$GPUS train.py c.py
        else
          python train.py c.py
        fi
        (( GPUS > 1 )) && python train.py big.py
        case $GPUS in 8) python train.py eight.py ;; esac
        """
    )
    assert [(launch.runner, launch.arguments, launch.notes) for launch in result.launches] == [
        (
            "torchrun",
            ("c.py",),
            (
                'runs only if `[ "$GPUS" -gt 1 ]` succeeds',
                "`$GPUS` is not set in the file: its default `8` is taken",
            ),
        ),
        ("python", ("c.py",), ('runs only if `[ "$GPUS" -gt 1 ]` fails',)),
        ("python", ("big.py",), ("runs only if `(( GPUS > 1 ))` succeeds",)),
        ("python", ("eight.py",), ("runs only if `$GPUS` matches `8`",)),
    ]


def test_variables_set_differently_on_two_paths_are_not_known(project: Project) -> None:
    launch = project.launch(
        """
        if [ -n "$BIG" ]; then N=8; else N=1; fi
        torchrun --nproc_per_node=$N train.py
        """
    )
    assert launch.nproc_per_node is None
    assert launch.notes == (
        "`--nproc_per_node=$N`: `$N` is set differently on different paths (line 1)",
    )


def test_case_arms(project: Project) -> None:
    text = """
        case "$1" in
          train|fit) python train.py c.py ;;
          dist) torchrun --nproc_per_node=8 train.py c.py ;;
          *) echo "usage: $0 train|dist"; exit 1 ;;
        esac
        """
    dist = project.read(text, arguments=["dist"])
    assert [launch.runner for launch in dist.launches] == ["torchrun"]
    unknown = project.read(text)
    assert [(launch.runner, launch.notes) for launch in unknown.launches] == [
        ("python", ('runs only if `"$1"` matches `train | fit`',)),
        (
            "torchrun",
            (
                'runs only if `"$1"` does not match `train | fit`',
                'runs only if `"$1"` matches `dist`',
            ),
        ),
    ]


def test_functions_with_arguments_and_locals(project: Project) -> None:
    result = project.read(
        """
        CFG=outer
        function launch {
          local CFG=$1 gpus=${2:-1}
          shift 2
          torchrun --nproc_per_node=$gpus train.py "$CFG" "$@"
        }
        single() { python train.py "$@"; return 0; python train.py never; }
        fresh() { local CFG; python train.py "${CFG:-unset}"; }
        launch configs/a.py 8 --amp
        single configs/b.py
        fresh
        python train.py $CFG
        """
    )
    assert [(launch.nproc_per_node, launch.arguments) for launch in result.launches] == [
        (8, ("configs/a.py", "--amp")),
        (1, ("configs/b.py",)),
        (1, ("unset",)),
        (1, ("outer",)),
    ]
    first = result.launches[0]
    assert first.source == project.span(5, 3, 5, 55)
    assert first.via == (project.span(9, 1, 9, 28),)


def test_here_documents_are_skipped(project: Project) -> None:
    result = project.read(
        "cat > job.sh <<EOF\n"
        "python train.py inside.py\n"
        "EOF\n"
        "cat <<-'END' >> notes.txt\n"
        "\ttorchrun train.py inside.py\n"
        "\tEND\n"
        "python - <<PY\n"
        "import torch\n"
        "PY\n"
        "python train.py after.py\n"
    )
    assert [launch.arguments for launch in result.launches] == [("after.py",)]
    assert result.launches[0].source.line == 10


def test_a_subshell_keeps_its_changes(project: Project) -> None:
    result = project.read(
        """
        X=outer
        (X=inner; cd tools; python train.py $X)
        python train.py $X
        { X=group; }
        python train.py $X
        """
    )
    assert [(launch.cwd, launch.arguments) for launch in result.launches] == [
        (project.root / "tools", ("inner",)),
        (project.root, ("outer",)),
        (project.root, ("group",)),
    ]


def test_exit_ends_the_launcher(project: Project) -> None:
    result = project.read(
        """
        [ -d data ] || { echo "no data"; exit 1; }
        python train.py a
        exit 0
        python train.py never
        """
    )
    assert [launch.arguments for launch in result.launches] == [("a",)]
    assert result.launches[0].notes == ()


def test_a_syntax_error_stops_the_reading_where_bash_stops(project: Project) -> None:
    result = project.read(
        """
        python train.py before
        if [ -n "$X" ]; then
          python train.py never
        echo 'unterminated
        """
    )
    assert [launch.arguments for launch in result.launches] == [("before",)]
    assert result.problems == (
        LoadProblem(
            "CL901",
            "shell syntax error: unterminated single quote (bash stops reading the file here)",
            project.span(4, 1, 4, 1),
        ),
    )


def test_syntax_errors_bash_would_refuse(project: Project) -> None:
    for text, message in [
        ("fi\n", "syntax error near `fi` (a command expected)"),
        ("if true; then python train.py\n", "unexpected end of file (`elif` expected)"),
        ("for 1x in a; do :; done\n", "syntax error near `1x` (a loop variable expected)"),
        ("echo $(python train.py\n", "unterminated `$(`"),
        ('echo "${X\n', "unterminated `${` (no `}`)"),
        ("case x in a) :\n", "unexpected end of file (`;;` or `esac` expected)"),
    ]:
        result = project.read(text)
        assert result.launches == ()
        assert [problem.message for problem in result.problems] == [
            f"shell syntax error: {message} (bash stops reading the file here)"
        ], text


def test_and_or_lists(project: Project) -> None:
    result = project.read(
        """
        true && python train.py a
        false && python train.py never
        false || python train.py b
        [ -f x.py ] && python train.py maybe
        """
    )
    assert [(launch.arguments, launch.notes) for launch in result.launches] == [
        (("a",), ()),
        (("b",), ()),
        (("maybe",), ("runs only if `[ -f x.py ]` succeeds",)),
    ]


def test_eval_and_bash_c(project: Project) -> None:
    result = project.read(
        """
        CMD="python train.py a"
        eval "$CMD --x"
        bash -c 'python train.py "$1"' name b
        sh -xc "torchrun --nproc_per_node=2 train.py c"
        eval "$UNKNOWN_CMD python train.py"
        """
    )
    assert [(launch.arguments, launch.source.line) for launch in result.launches] == [
        (("a", "--x"), 2),
        (("b",), 3),
        (("c",), 4),
    ]
    assert [(note.span.line, note.message) for note in result.notes] == [
        (
            5,
            "`eval` runs code not known statically (`$UNKNOWN_CMD` is set outside the file)",
        )
    ]
