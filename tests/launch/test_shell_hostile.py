"""Untrusted launchers (a pre-commit hook, a pull-request bot): never a traceback, a hang, a
read of a file outside the project, or work that grows without bound."""

from __future__ import annotations

import os
import random
import time

import pytest
from launcher_project import Project

from cfglint.launch.shell import read_launcher
from cfglint.launch.shell import session as shell_session
from cfglint.launch.shell.session import MAX_STEPS
from cfglint.types import Launch, LauncherFile, LoadProblem


def _timed(project: Project, text: str | bytes) -> tuple[LauncherFile, float]:
    started = time.monotonic()
    result = project.read(text)
    return result, time.monotonic() - started


def test_bytes_that_are_not_utf8_are_read_around(project: Project) -> None:
    result = project.read(b"# \xc5\xe4\xd6\xc3 GBK comment\npython train.py \xff.py\n")
    assert [launch.arguments for launch in result.launches] == [("\ufffd.py",)]
    assert [(note.span.line, note.message) for note in result.notes] == [
        (
            1,
            "not UTF-8 text (byte 0xc5): such bytes are read as U+FFFD, the rest of the file as "
            "written",
        )
    ]
    assert result.problems == ()


def test_nul_bytes_and_windows_line_ends(project: Project) -> None:
    result = project.read(b"python tr\0ain.py a\r\npython train.py b\r\n")
    assert [(launch.entry.name, launch.arguments) for launch in result.launches] == [
        ("train.py", ("a",)),
        ("train.py", ("b",)),
    ]
    assert [note.message for note in result.notes] == [
        "NUL bytes in the file are ignored, as bash ignores them",
        "Windows line ends (CRLF): bash reads the `\\r` as part of each line's last word; "
        "cfglint reads the lines without it",
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("python train.py a\necho 'open\npython train.py b\n", 2, "unterminated single quote"),
        ('python train.py a\necho "open\n', 2, "unterminated double quote"),
        ("python train.py a\necho `open\n", 2, "unterminated backquote"),
        ("python train.py a\necho $'open\n", 2, "unterminated $'...' quote"),
        ("python train.py a\nx=(1 2\n", 2, "unterminated array `(`"),
        ("python train.py a\necho ${x\n", 2, "unterminated `${` (no `}`)"),
    ],
)
def test_unterminated_constructs(project: Project, text: str, line: int, message: str) -> None:
    result = project.read(text)
    assert [launch.arguments for launch in result.launches] == [("a",)]
    assert result.problems == (
        LoadProblem(
            "CL901",
            f"shell syntax error: {message} (bash stops reading the file here)",
            project.span(line, 1, line, 1),
        ),
    )


def test_a_bad_substitution_fails_its_command_only(project: Project) -> None:
    # bash reports `${x;}: bad substitution` when it runs the line, and goes on.
    result = project.read("python train.py ${x;}\npython train.py b\n")
    assert [launch.arguments for launch in result.launches] == [("${x;}",), ("b",)]
    assert result.problems == ()


@pytest.mark.parametrize(
    "text",
    [
        "x=" + "$(" * 5000 + "echo" + ")" * 5000 + "\n",
        "x=" + '"$(' * 3000 + "\n",
        "echo " + "${x:-" * 3000 + "}" * 3000 + "\n",
        "if true; then\n" * 3000 + "python train.py\n" + "fi\n" * 3000,
        "{ " * 3000 + "python train.py;" + " }" * 3000 + "\n",
        "( " * 3000 + "python train.py" + " )" * 3000 + "\n",
        "f() {\n" * 3000 + "python train.py\n" + "}\n" * 3000,
        "echo $((" + "(" * 3000 + "1" + ")" * 3000 + "))\n",
        "((" + "-" * 5000 + "1))\n",
        "echo " + '"' * 5001 + "\n",
        "x=" + "`" * 5001 + "\n",
        "case x in\n" * 2000,
        "for i in 1; do\n" * 2000 + "done\n" * 2000,
    ],
)
def test_deep_nesting_is_refused_or_read_quickly(project: Project, text: str) -> None:
    result, seconds = _timed(project, text)
    assert seconds < 30
    assert all(isinstance(launch, Launch) for launch in result.launches)
    assert len(result.problems) <= 1


def test_a_long_launcher_is_read_in_linear_time(project: Project) -> None:
    lines = [
        "X=$((X + 1)); echo $X > /dev/null",
        "python train.py configs/x.py --cfg-options a=$X",
        'if [ "$X" -gt 3 ]; then : ; fi',
        "# a comment with 'quotes' and $(things)",
        "mkdir -p work_dirs/$X",
    ]
    text = "X=0\n" + "\n".join(lines[index % len(lines)] for index in range(10_000)) + "\n"
    result, seconds = _timed(project, text)
    assert len(result.launches) == 2000
    assert result.launches[-1].arguments == ("configs/x.py", "--cfg-options", "a=2000")
    assert seconds < 120


@pytest.mark.parametrize(
    "text",
    [
        "echo {1..100}{1..100}{1..100}{1..100}\npython train.py\n",
        "echo {1..99999999}\npython train.py\n",
        "x=a\n" + "x=$x$x\n" * 40 + "python train.py ${#x}\n",
        "for i in $(seq 1 1000); do for j in $(seq 1 1000); do :; done; done\npython train.py\n",
        "i=0\nwhile true; do i=$((i+1)); done\npython train.py\n",
        "f() { f; }\nf\npython train.py\n",
        "f() { g; }\ng() { f; }\nf\npython train.py\n",
        "f() { f & f; }\nf\npython train.py\n",
        "echo $(( 2 ** 999999999999 )) $(( 1 / 0 )) $(( 9223372036854775807 + 1 ))\n"
        "python train.py\n",
        "x=$(printf '%s' {1..1000})\npython train.py\n",
        "seq 1 99999999999 > /dev/null\npython train.py\n",
        "echo ${x:0:99999999999}\npython train.py\n",
        'x=${y/#*/$(printf "%0100000d" 0)}\npython train.py\n',
    ],
)
def test_work_that_could_explode_is_bounded(
    project: Project, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_session, "MAX_STEPS", 3000)  # the mechanism, not the real bound
    result, seconds = _timed(project, text)
    assert seconds < 60
    if result.problems:
        [problem] = result.problems
        assert problem.code == "CL902"
        assert "stopped after 3,000 simulated commands" in problem.message
    else:
        assert result.launches[-1].entry == project.root / "train.py"


def test_a_launcher_with_too_much_to_simulate_stops_with_a_problem(project: Project) -> None:
    text = "for a in {1..1000}; do for b in {1..1000}; do echo $a$b; done; done\n"
    result, seconds = _timed(project, "python train.py first\n" + text + "python train.py last\n")
    assert [launch.arguments for launch in result.launches] == [("first",)]
    assert result.problems == (
        LoadProblem(
            "CL902",
            f"launcher too complex to read statically: stopped after {MAX_STEPS:,} simulated "
            "commands (its loops and calls included)",
            project.span(1, 1, 1, 1),
        ),
    )
    assert seconds < 120


def test_files_that_are_not_launchers(project: Project) -> None:
    os.mkfifo(project.root / "fifo.sh")
    (project.root / "folder.sh").mkdir()
    (project.root / "big.sh").write_bytes(b"#" * (1024 * 1024 + 1))
    os.symlink("loop.sh", project.root / "loop.sh")
    os.symlink("gone", project.root / "broken.sh")
    messages = {}
    for name in ("fifo.sh", "folder.sh", "big.sh", "loop.sh", "broken.sh", "missing.sh"):
        result = read_launcher(project.root / name, cwd=project.root)
        assert result.launches == ()
        [problem] = result.problems
        assert (problem.code, problem.span.path, problem.span.line) == (
            "CL902",
            project.root / name,
            1,
        )
        messages[name] = problem.message
    assert messages == {
        "fifo.sh": "not a regular file (a FIFO, socket or device): not read",
        "folder.sh": "is a directory, not a file",
        "big.sh": "file too large (1,048,577 bytes; cfglint reads files up to 1 MB)",
        "loop.sh": "symlink loop",
        "broken.sh": "broken symlink: the file it points to does not exist",
        "missing.sh": "file not found",
    }


def test_nothing_outside_the_project_is_read(project: Project) -> None:
    secret = project.root.parent / "secret.sh"
    secret.write_text("python train.py $SECRET_TOKEN\n")
    os.symlink(secret, project.root / "inside.sh")
    result = project.read(
        "source inside.sh\nbash ../secret.sh\n. /etc/profile\nbash /dev/stdin\n"
        "bash /proc/self/environ\n"
    )
    assert result.launches == ()
    assert result.files == (project.root / "run.sh",)
    assert [note.message for note in result.notes] == [
        "the launcher `inside.sh` is outside the project: not read",
        "the launcher `../secret.sh` is outside the project: not read",
        "the launcher `/etc/profile` is outside the project: not read",
        "the launcher `/dev/stdin` is not a regular file: not followed",
        "the launcher `/proc/self/environ` is outside the project: not read",
    ]


def test_nothing_is_executed(project: Project) -> None:
    marker = project.root / "executed"
    result = project.read(
        f"touch {marker}\nX=$(touch {marker})\necho `touch {marker}` > {marker}\n"
        f"eval 'touch {marker}'\nbash -c 'touch {marker}'\npython -c 'open(\"{marker}\", \"w\")'\n"
    )
    assert not marker.exists()
    assert result.launches == ()


_ALPHABET = [
    "python", "torchrun", "train.py", " ", "\n", ";", "&", "&&", "|", "||", "(", ")", "{", "}",
    "$", "${", "$(", "$((", "`", "'", '"', "\\", "#", "<<", "EOF", ">", "2>&1", "if", "then",
    "fi", "for", "in", "do", "done", "case", "esac", "while", "x=", "$x", "$1", "$@", "${@:3}",
    "--nproc_per_node=", "8", "-m", "torch.distributed.launch", "bash", "run.sh", "eval",
    "source", "cd", "..", "export", "local", "f()", "[[", "]]", "[", "]", "-eq", "=~", "*",
    "{0..3}", ",", ":-", "%", "#", "/", "!", "=", "((", "))", "$'", "\t", "\r", "\0", "é",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_random_launchers_never_raise(project: Project, seed: int) -> None:
    generator = random.Random(seed)
    for _ in range(25):
        pieces = generator.choices(_ALPHABET, k=generator.randint(1, 60))
        text = "".join(pieces)
        try:
            result = project.read(text.encode("utf-8", errors="replace"))
        except Exception as error:  # pragma: no cover - the message names the failing input
            raise AssertionError(f"{type(error).__name__}: {error} on {text!r}") from error
        for launch in result.launches:
            assert launch.entry.is_absolute()
            assert all(isinstance(argument, str) for argument in launch.arguments)
            assert all(0 <= index < len(launch.arguments) for index in launch.unresolved)
