"""Commands that run another command: `env X=1 cmd`, `nohup`, `exec`, `time`, `command`,
`nice`, `timeout`, `stdbuf`, `numactl`, `taskset`. `unwrap` takes them off the front.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from cfglint.launch.shell.runner_options import split_assignment
from cfglint.launch.shell.values import Field

_NUMACTL_VALUES = frozenset({"-N", "-m", "-C", "-p", "-i", "-P", "-w", "-b"})
_NUMACTL_NOT_RUN = frozenset({"--hardware", "-H", "--show", "-s"})
_TIMEOUT_VALUES = frozenset({"-s", "-k", "--signal", "--kill-after"})
_EXEC_VALUES = frozenset({"-a"})
_TIME_VALUES = frozenset({"-f", "--format", "-o", "--output"})


@dataclass(frozen=True, slots=True)
class Unwrapped:
    argv: tuple[Field, ...]
    environment: tuple[tuple[str, Field], ...] = ()  # `env NAME=VALUE`
    unset: tuple[str, ...] = ()  # `env -u NAME`
    cleared: bool = False  # `env -i`: nothing of the shell's environment is passed on
    replaces_shell: bool = False  # `exec cmd`: the launcher ends with it
    not_run: bool = False  # `command -v cmd`, `taskset -p`: the command is not started


def unwrap(argv: Sequence[Field]) -> Unwrapped:
    words = tuple(argv)
    environment: list[tuple[str, Field]] = []
    unset: list[str] = []
    cleared = replaces = False
    for _ in range(64):  # `nohup env nice ...`: a few levels, never a loop
        if not words or not words[0].exact:
            break
        name = os.path.basename(words[0].text)
        if name == "env":
            index, cleared_here = _env(words, environment, unset)
            cleared = cleared or cleared_here
        elif name == "nohup":
            index = 1
        elif name == "exec":
            index = _skip_options(words, _EXEC_VALUES)
            replaces = index < len(words)
        elif name == "time":
            index = _skip_options(words, _TIME_VALUES)
        elif name == "command":
            index = _skip_options(words, frozenset())
            if any(word.text in ("-v", "-V") for word in words[1:index]):
                return Unwrapped((), not_run=True)
        elif name == "nice":
            index = _skip_options(words, frozenset({"-n", "--adjustment"}))
        elif name == "timeout":
            index = _skip_options(words, _TIMEOUT_VALUES) + 1  # and the duration
        elif name == "stdbuf":
            index = _skip_options(words, frozenset({"-i", "-o", "-e"}))
        elif name == "numactl":
            index = _skip_options(words, _NUMACTL_VALUES)
            if any(word.text in _NUMACTL_NOT_RUN for word in words[1:index]):
                return Unwrapped((), not_run=True)
        elif name == "taskset":
            index = _skip_options(words, frozenset())
            if any("p" in word.text for word in words[1:index] if not word.text.startswith("--")):
                return Unwrapped((), not_run=True)
            index += 1  # the mask or the CPU list
        else:
            break
        words = words[index:]
    return Unwrapped(words, tuple(environment), tuple(unset), cleared, replaces)


def _skip_options(words: tuple[Field, ...], with_values: frozenset[str]) -> int:
    """The index after a wrapper's options (`-x`, `--long`, `-o VALUE`, `--long=VALUE`)."""
    index = 1
    while index < len(words):
        text = words[index].text
        if not words[index].exact or not text.startswith("-") or text == "-":
            break
        index += 1
        if text == "--":
            break
        if text in with_values:
            index += 1
    return index


def _env(
    words: tuple[Field, ...], environment: list[tuple[str, Field]], unset: list[str]
) -> tuple[int, bool]:
    index = 1
    cleared = False
    while index < len(words):
        word = words[index]
        text = word.text
        if text in ("-i", "--ignore-environment", "-"):
            cleared = True
        elif text in ("-u", "--unset") and index + 1 < len(words):
            unset.append(words[index + 1].text)
            index += 1
        elif text.startswith("--unset="):
            unset.append(text.split("=", 1)[1])
        elif text == "--":
            index += 1
            break
        elif text.startswith("-") and word.exact:
            pass
        else:
            assignment = split_assignment(word)
            if assignment is None:
                break
            environment.append(assignment)
        index += 1
    return index, cleared
