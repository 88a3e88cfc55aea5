"""One reading of a launcher: what it found so far, the files it read, and its bounds.

`Frame` is where a command runs (which file, through which lines, under which conditions);
`Session` collects launches, notes and problems, reads each launcher file once, and stops the
reading when it has simulated too many commands.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from cfglint.codes import SYNTAX_ERROR, UNREADABLE_CONFIG
from cfglint.launch.shell.lexer import SyntaxProblem
from cfglint.launch.shell.parser import parse_program
from cfglint.launch.shell.runner_cluster import slurm_defaults
from cfglint.launch.shell.runner_spec import SlurmDefaults
from cfglint.launch.shell.source import Unreadable, read_launcher_text
from cfglint.launch.shell.to_launch import LaunchRecord
from cfglint.launch.shell.tree import CommandList
from cfglint.launch.shell.values import Value, Variable
from cfglint.types import LauncherNote, LoadProblem, Span

MAX_STEPS = 30_000  # simple commands simulated in one reading, loops and calls included
MAX_LAUNCHER_DEPTH = 8  # launchers calling launchers
MAX_CALL_DEPTH = 24  # functions, `eval` and `bash -c` inside each other


class Outcome(NamedTuple):
    """How a command ended."""

    flow: str  # "": go on; "exit", "return", "break", "continue"
    status: bool | None  # the exit status: True success, False failure, None not known
    # The status rests on a default the file takes for a variable it does not set
    # (`${GPUS:-8}`): a loop may count with it, but a branch the environment can change is
    # not decided by it.
    assumed: bool = False


NORMAL = Outcome("", True)
UNKNOWN = Outcome("", None)


def short(text: str, limit: int = 80) -> str:
    """A command's text on one line, cut to `limit` characters, for notes."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class OutOfSteps(Exception):
    """The reading simulated MAX_STEPS commands: what follows is not read."""


@dataclass
class Capture:
    """The output of a command substitution being simulated."""

    parts: list[Value] = field(default_factory=list)
    unknown: str = ""  # why the output is not known ("" while it is)


@dataclass(frozen=True, slots=True)
class Frame:
    path: Path  # the launcher file the commands are written in
    folder: Path  # its folder, absolute
    via: tuple[Span, ...] = ()
    guards: tuple[str, ...] = ()
    background: bool = False
    capture: Capture | None = None
    depth: int = 0  # launchers calling launchers
    calls: int = 0  # functions, `eval`, `bash -c`
    # Code read from a string (`bash -c`, `eval`): its launches are reported at this line.
    source_override: Span | None = None
    slurm: SlurmDefaults | None = None
    # The variables a function declared `local`, with what they held before.
    locals: dict[str, Variable | None] | None = None


@dataclass(frozen=True, slots=True)
class ParsedLauncher:
    commands: tuple[CommandList, ...]
    syntax: SyntaxProblem | None
    slurm: SlurmDefaults | None


class Session:
    def __init__(self, roots: tuple[Path, ...]) -> None:
        # Launchers are followed only inside these folders (the project, the launcher's own).
        self.roots = tuple(os.path.realpath(root) for root in roots)
        self.notes: list[LauncherNote] = []
        self.problems: list[LoadProblem] = []
        self.files: list[Path] = []
        self.active: list[str] = []  # real paths of the launchers being run
        self._steps = 0
        self.max_steps = MAX_STEPS
        self._sinks: list[list[LaunchRecord]] = [[]]
        self._quiet = 0
        self._parsed: dict[str, ParsedLauncher] = {}
        self._code: dict[str, tuple[list[CommandList], SyntaxProblem | None]] = {}

    # -- results

    @property
    def records(self) -> list[LaunchRecord]:
        return self._sinks[0]

    def emit(self, record: LaunchRecord) -> None:
        if not self._quiet:
            self._sinks[-1].append(record)

    def note(self, span: Span, message: str, via: tuple[Span, ...]) -> None:
        if not self._quiet:
            self.notes.append(LauncherNote(span, message, via))

    def problem(self, code: str, message: str, span: Span) -> None:
        if not self._quiet:
            self.problems.append(LoadProblem(code, message, span))

    @contextmanager
    def collect(self) -> Iterator[list[LaunchRecord]]:
        """Launch records found inside, held back for the caller to decide on (a loop)."""
        sink: list[LaunchRecord] = []
        self._sinks.append(sink)
        try:
            yield sink
        finally:
            self._sinks.pop()

    @contextmanager
    def silenced(self) -> Iterator[None]:
        """Nothing found inside counts (a loop run only to count its iterations)."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def inside_roots(self, path: Path) -> bool:
        real = os.path.realpath(path)
        return any(
            real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots
        )

    # -- bounds

    def tick(self) -> None:
        self._steps += 1
        if self._steps > self.max_steps:
            raise OutOfSteps

    # -- reading

    def load(self, path: Path, via: tuple[Span, ...]) -> ParsedLauncher | None:
        """A launcher file's commands, read and parsed once; None (and a problem) when it
        cannot be read."""
        key = os.path.realpath(path)
        if key in self._parsed:
            return self._parsed[key]
        if path not in self.files:
            self.files.append(path)
        whole = Span(path, 1, 1, 1, 1)
        read = read_launcher_text(path)
        if isinstance(read, Unreadable):
            self.problems.append(LoadProblem(UNREADABLE_CONFIG, read.message, whole))
            return None
        for line, message in read.notes:
            self.notes.append(LauncherNote(Span(path, line, 1, line, 1), message, via))
        commands, syntax = parse_program(read.text, path)
        if syntax is not None:
            message = f"shell syntax error: {syntax.message} (bash stops reading the file here)"
            span = Span(path, syntax.line, 1, syntax.line, 1)
            self.problems.append(LoadProblem(SYNTAX_ERROR, message, span))
        parsed = ParsedLauncher(tuple(commands), syntax, slurm_defaults(read.text))
        self._parsed[key] = parsed
        return parsed

    def code(
        self, text: str, path: Path, first_line: int
    ) -> tuple[list[CommandList], SyntaxProblem | None]:
        """Commands in a string (`$(...)`, `eval`, `bash -c`), parsed once per text."""
        key = f"{path}\0{first_line}\0{text}"
        if key not in self._code:
            if len(self._code) > 10_000:
                self._code.clear()
            self._code[key] = parse_program(text, path, first_line)
        return self._code[key]
