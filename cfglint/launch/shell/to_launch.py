"""A recognised launch command and the shell around it (working folder, exported variables,
the lines that led to it) into the shared `Launch` value, with a note for everything left open.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from cfglint.launch.shell.runner_spec import LaunchSpec
from cfglint.launch.shell.values import (
    Assumption,
    Field,
    Value,
    assumptions,
    first_unknown,
    is_exact,
    mixes_rank,
    text_of,
)
from cfglint.types import Launch, LaunchRunner, Span

# Variables a process reads from its environment: set in a launcher without `export`, they do
# not reach the process unless the environment already had them (a common launcher mistake).
_PROCESS_VARIABLE = re.compile(
    r"(CUDA|TOPS|ASCEND_RT|HIP|MLU|MUSA|XPU|ROCR)_VISIBLE_DEVICES|PYTHONPATH|MASTER_ADDR|"
    r"MASTER_PORT|WORLD_SIZE|LOCAL_RANK|RANK|LOCAL_WORLD_SIZE|OMP_NUM_THREADS|"
    r"(NCCL|ECCL|TORCH|PYTORCH|MKL|GLOO|TF|HF|CUDA|MMENGINE)_[A-Z0-9_]+"
)
_RANK_NAME = re.compile(r"RANK|VISIBLE_DEVICES|DEVICE|GPU", re.IGNORECASE)
_RANK_OPTION = re.compile(r"rank|gpu|device|local", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class CommandContext:
    """Where a launch command runs: what the shell around it knows at that point."""

    cwd: Path
    cwd_unknown: str  # why the working folder is not known ("" when it is)
    launcher_folder: Path  # the folder of the launcher file the command is written in
    environment: tuple[tuple[str, Value], ...]  # exported, then prefixed (later ones win)
    unexported: tuple[tuple[str, int], ...]  # process variables set without `export`: line
    source: Span
    via: tuple[Span, ...]
    guards: tuple[str, ...]  # the conditions the command runs under


@dataclass(frozen=True, slots=True)
class LoopInfo:
    """A loop that starts the command once per rank, in the background."""

    variables: tuple[str, ...]
    count: int | None
    values: str  # the loop variable's values, shortly ("0 to 7")
    why: str = ""  # why the count is not known
    assumed: tuple[Assumption, ...] = ()  # defaults the count rests on


@dataclass(frozen=True, slots=True)
class LaunchRecord:
    spec: LaunchSpec
    context: CommandContext
    background: bool
    loop: LoopInfo | None = None
    extra_notes: tuple[str, ...] = ()


def is_process_variable(name: str) -> bool:
    return _PROCESS_VARIABLE.fullmatch(name) is not None


def uses_rank(record: LaunchRecord) -> bool:
    """The command gets a per-rank value where a rank or device belongs: `RANK=$i`,
    `CUDA_VISIBLE_DEVICES=$i`, `--local_rank=$i`."""
    if any(
        _RANK_NAME.search(name) and mixes_rank(value) for name, value in record.context.environment
    ):
        return True
    arguments = record.spec.arguments
    for index, argument in enumerate(arguments):
        if not argument.rank:
            continue
        option = argument.text.split("=", 1)[0] if "=" in argument.text else ""
        if not option and index:
            option = arguments[index - 1].text
        if _RANK_OPTION.search(option):
            return True
    return False


def build_launch(record: LaunchRecord) -> Launch:
    spec, context, loop = record.spec, record.context, record.loop
    notes: list[str] = list(spec.notes)
    cwd = _working_folder(spec, context, notes)
    entry = _entry(spec.entry, cwd, context.launcher_folder, notes)
    arguments, unresolved = _arguments(spec.arguments, notes)
    environment, rank_variables = _environment(record, notes)
    runner: LaunchRunner = spec.runner
    nproc, nnodes = spec.nproc_per_node, spec.nnodes
    if loop is not None:
        runner, nproc, nnodes = "loop", loop.count, 1
        notes.append(
            f"one process per value of `${'`, `$'.join(loop.variables)}` ({loop.values}), "
            "started in the background"
        )
        if loop.count is None:
            notes.append(f"the number of processes is not known: {loop.why}")
    notes += [f"runs only if {guard}" for guard in context.guards]
    notes += _assumption_notes(
        spec,
        environment_values=[value for _, value in context.environment],
        loop_assumed=loop.assumed if loop is not None else (),
    )
    notes += record.extra_notes
    return Launch(
        entry=entry,
        arguments=arguments,
        cwd=cwd,
        runner=runner,
        nproc_per_node=nproc,
        nnodes=nnodes,
        unresolved=frozenset(unresolved),
        environment=environment,
        rank_variables=frozenset(rank_variables) | spec.rank_variables,
        passes_local_rank=spec.passes_local_rank,
        source=context.source,
        via=context.via,
        notes=tuple(dict.fromkeys(notes)),
    )


def _working_folder(spec: LaunchSpec, context: CommandContext, notes: list[str]) -> Path:
    cwd = context.cwd
    if context.cwd_unknown:
        notes.append(f"the working folder is not known: {context.cwd_unknown}")
    if spec.cwd is not None:
        if spec.cwd.exact:
            cwd = Path(os.path.normpath(cwd / spec.cwd.text))
        else:
            notes.append(f"the working folder `{spec.cwd.source}` is not known: {spec.cwd.why}")
    return cwd


def _entry(entry: Field, cwd: Path, launcher_folder: Path, notes: list[str]) -> Path:
    if not entry.exact:
        notes.append(f"the entry script `{entry.text}` is not known statically: {entry.why}")
        return Path(os.path.normpath(cwd / entry.text))
    written = Path(entry.text)
    in_cwd = Path(os.path.normpath(cwd / written))
    if os.path.isfile(in_cwd):
        return in_cwd
    beside = Path(os.path.normpath(launcher_folder / written))
    if not written.is_absolute() and beside != in_cwd and os.path.isfile(beside):
        notes.append(
            f"the entry script `{entry.text}` is not in the working folder {cwd}; "
            "the one beside the launcher is taken"
        )
        return beside
    notes.append(f"the entry script `{entry.text}` does not exist ({in_cwd})")
    return in_cwd


def _arguments(fields: tuple[Field, ...], notes: list[str]) -> tuple[tuple[str, ...], set[int]]:
    arguments: list[str] = []
    unresolved: set[int] = set()
    for field in fields:
        if field.many:
            notes.append(
                f"`{field.text}` is left out of the arguments: it may stand for any number of "
                f"words ({field.why})"
            )
            continue
        index = len(arguments)
        arguments.append(field.text)
        if field.rank:
            unresolved.add(index)
            notes.append(f"argument {index} `{field.text}` differs from process to process")
        elif not field.exact:
            unresolved.add(index)
            notes.append(f"argument {index} `{field.text}` is not known statically: {field.why}")
        elif field.pattern:
            notes.append(
                f"argument {index} `{field.text}` is a file name pattern: bash replaces it with "
                "the matching file names; kept as written"
            )
    return tuple(arguments), unresolved


def _environment(record: LaunchRecord, notes: list[str]) -> tuple[dict[str, str], set[str]]:
    context, spec = record.context, record.spec
    values: dict[str, Value] = dict(context.environment)
    for name, field in spec.environment:
        values[name] = field.segments
    environment: dict[str, str] = {}
    rank_variables: set[str] = set()
    for name, value in values.items():
        if name in spec.rank_variables:
            continue
        if mixes_rank(value):
            rank_variables.add(name)
            continue
        environment[name] = text_of(value)
        if not is_exact(value):
            inner = first_unknown(value)
            why = inner.why if inner is not None else ""
            notes.append(f"environment `{name}={text_of(value)}`: {why}")
    for name, line in context.unexported:
        if name not in values and name not in spec.rank_variables:
            notes.append(
                f"`{name}` is set at line {line} but not exported: the process sees it only if "
                "the environment already had it"
            )
    return environment, rank_variables


def _assumption_notes(
    spec: LaunchSpec, environment_values: list[Value], loop_assumed: tuple[Assumption, ...]
) -> list[str]:
    taken: list[Assumption] = list(loop_assumed)
    for field in (spec.entry, *spec.arguments, *spec.counted_from):
        taken.extend(field.assumed)
    for value in environment_values:
        taken.extend(assumptions(value))
    notes = []
    for name, default in dict.fromkeys(taken):
        if name.isdigit():
            taken_as = f"its default `{default}` is taken" if default else "taken as unset"
            notes.append(f"`${name}`, the launcher's argument {name}, is not known: {taken_as}")
        elif default:
            notes.append(f"`${name}` is not set in the file: its default `{default}` is taken")
        else:
            notes.append(f"`${name}` is not set in the file: taken as unset")
    return notes
