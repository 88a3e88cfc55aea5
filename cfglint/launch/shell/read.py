"""Launches in a shell launcher, found statically: nothing in it is executed.

`read_launcher` reads a launcher (`start_8card_training.sh`, OpenMMLab's `tools/dist_train.sh`)
the way bash would run it, in a simulated shell: variables, arguments, `cd`, functions,
conditions, loops, and the launchers it calls (`bash tools/dist_train.sh CONFIG 8`). Each
command that starts Python training processes becomes a `Launch` (docs/launches.md).

Only the launcher and the launchers it calls are read, and only inside the project (the `cwd`
given, or the launcher's own folder): a launcher from a pull request cannot make cfglint read
`~/.ssh` or `/dev/zero`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from cfglint.codes import UNREADABLE_CONFIG
from cfglint.launch.shell.interp import Interpreter
from cfglint.launch.shell.session import Frame, OutOfSteps, Session
from cfglint.launch.shell.state import ShellState
from cfglint.launch.shell.to_launch import build_launch
from cfglint.launch.shell.values import UNKNOWN_ARGUMENTS, Positional, known
from cfglint.types import LauncherFile, LauncherNote, LoadProblem, Span


def read_launcher(path: Path, *, cwd: Path, arguments: Sequence[str] | None = None) -> LauncherFile:
    """Every Python launch the launcher at `path` starts, in the order it starts them.

    `cwd` is the folder the launcher is run from (the project root: OpenMMLab's launchers expect
    to be run from there). `arguments` are the launcher's own arguments (`$1`, `$2` ...); None
    when they are not known, as for a launcher checked on its own, so that what depends on them
    stays unresolved rather than empty.
    """
    path = Path(os.path.abspath(path))
    cwd = Path(os.path.abspath(cwd))
    session = Session(roots=(cwd, path.parent))
    parsed = session.load(path, ())
    if parsed is not None:
        state = ShellState(
            variables={},
            positional=UNKNOWN_ARGUMENTS
            if arguments is None
            else Positional(tuple(known(argument) for argument in arguments)),
            script=known(_as_called(path, cwd)),
            cwd=cwd,
        )
        frame = Frame(path=path, folder=path.parent, slurm=parsed.slurm)
        session.active.append(os.path.realpath(path))
        interpreter = Interpreter(session)
        try:
            interpreter.run_commands(parsed.commands, state, frame)
        except OutOfSteps:
            message = (
                f"launcher too complex to read statically: stopped after {session.max_steps:,} "
                "simulated commands (its loops and calls included)"
            )
            session.problems.append(LoadProblem(UNREADABLE_CONFIG, message, Span(path, 1, 1, 1, 1)))
        except RecursionError:
            message = "launcher nested too deeply to read statically"
            session.problems.append(LoadProblem(UNREADABLE_CONFIG, message, Span(path, 1, 1, 1, 1)))
    return LauncherFile(
        path=path,
        launches=tuple(build_launch(record) for record in session.records),
        problems=tuple(dict.fromkeys(session.problems)),
        notes=_unique(session.notes),
        files=tuple(session.files),
    )


def _as_called(path: Path, cwd: Path) -> str:
    """`$0`: the launcher as `bash path` from the working folder would name it."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _unique(notes: list[LauncherNote]) -> tuple[LauncherNote, ...]:
    return tuple(dict.fromkeys(notes))
