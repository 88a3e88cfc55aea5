"""`srun` (Slurm) and `mpirun`/`mpiexec` (Open MPI, MPICH): how many processes per node and
nodes they start, and the command each process runs (read by the `read_inner` classifier)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import replace

from cfglint.launch.shell.runner_options import (
    MPI_RANK_VARIABLES,
    MPI_TWO_VALUE_OPTIONS,
    MPI_VALUE_OPTIONS,
    SRUN_RANK_VARIABLES,
    SRUN_SHORT_NAMES,
    SRUN_SHORT_VALUES,
    SRUN_VALUE_OPTIONS,
    count_value,
    field_after,
    read_options,
    split_assignment,
)
from cfglint.launch.shell.runner_spec import Classified, NotLaunch, ScriptCall, SlurmDefaults
from cfglint.launch.shell.values import Field, Segment

Classifier = Callable[[Sequence[Field]], Classified]


def srun_command(args: Sequence[Field], slurm: SlurmDefaults, read_inner: Classifier) -> Classified:
    options = read_options(
        args,
        lambda name: name,
        lambda name: name in SRUN_VALUE_OPTIONS,
        lambda letter: SRUN_SHORT_NAMES.get(letter, letter),
        short_takes_value=lambda letter: letter in SRUN_SHORT_VALUES,
    )
    inner = read_inner(args[options.rest :])
    if inner is None or isinstance(inner, NotLaunch):
        return inner
    if isinstance(inner, ScriptCall):
        return NotLaunch("`srun` runs a shell script on each task: not followed")
    values = options.values
    per_node_field = values.get("ntasks-per-node") or values.get("tasks-per-node")
    per_node_field = per_node_field or (slurm.per_node if not values.get("ntasks") else None)
    total_field = values.get("ntasks") or slurm.ntasks
    nodes_field = values.get("nodes") or slurm.nodes
    counted = tuple(item for item in (per_node_field, total_field, nodes_field) if item)
    nproc, nnodes, count_notes = _spread(per_node_field, total_field, nodes_field, "srun")
    notes = (*options.notes, *count_notes)
    cwd = values.get("chdir")
    if inner.runner != "python":
        note = f"`srun` starts `{inner.runner}` on each of its tasks"
        return replace(inner, notes=(*notes, note, *inner.notes), cwd=cwd or inner.cwd)
    return replace(
        inner,
        runner="srun",
        nproc_per_node=nproc,
        nnodes=nnodes,
        rank_variables=SRUN_RANK_VARIABLES,
        cwd=cwd or inner.cwd,
        notes=(*notes, *inner.notes),
        counted_from=counted,
    )


def _spread(
    per_node: Field | None, total: Field | None, nodes: Field | None, program: str
) -> tuple[int | None, int | None, list[str]]:
    """Processes per node and nodes from a per-node count, a total, a node count."""
    notes: list[str] = []
    per_node_count, note = count_value(per_node, None)
    notes += [note] if note else []
    total_count, note = count_value(total, None)
    notes += [note] if note else []
    node_count, note = count_value(nodes, None)
    if note and nodes is not None and "-" in nodes.text:
        note = f"`{nodes.source}`: a range of node counts"
    notes += [note] if note else []
    if per_node is not None:
        if node_count is None and total_count is not None and per_node_count:
            if total_count % per_node_count == 0:
                node_count = total_count // per_node_count
        elif nodes is None and total is None:
            node_count = 1
        return per_node_count, node_count, notes
    if total is not None and nodes is not None:
        if total_count is not None and node_count and total_count % node_count == 0:
            return total_count // node_count, node_count, notes
        return None, node_count, notes
    if total is not None:
        if program == "mpirun":
            return total_count, 1, notes
        why = f"`{total.source}` processes in all; how many per node depends on the allocation"
        return None, None, [*notes, why]
    if nodes is not None:
        return 1, node_count, notes
    if program == "srun":
        return None, None, [*notes, "`srun` takes its process count from the job's allocation"]
    return None, None, [*notes, f"`{program}` without a process count: one per slot"]


def mpirun_command(args: Sequence[Field], read_inner: Classifier) -> Classified:
    index = 0
    values: dict[str, Field] = {}
    environment: list[tuple[str, Field]] = []
    notes: list[str] = []
    while index < len(args):
        word = args[index]
        text = word.text
        if word.many:
            notes.append(f"`mpirun` options from `{word.source}` are not known: {word.why}")
            index += 1
            continue
        if not word.exact or not text.startswith("-"):
            break
        if text == "--":
            index += 1
            break
        name, equals, attached = text.lstrip("-").partition("=")
        if name in MPI_TWO_VALUE_OPTIONS:
            if name in ("genv", "env") and index + 2 < len(args) and args[index + 1].exact:
                environment.append((args[index + 1].text, args[index + 2]))
            index += 3
            continue
        if name in MPI_VALUE_OPTIONS:
            value = field_after(word, len(text) - len(attached)) if equals else None
            if value is None and index + 1 < len(args):
                value = args[index + 1]
                index += 1
            if value is not None:
                if name == "x":
                    assignment = split_assignment(value)
                    if assignment:
                        environment.append(assignment)
                else:
                    values[name] = value
        index += 1
    inner = read_inner(args[index:])
    if inner is None or isinstance(inner, NotLaunch):
        return inner
    if isinstance(inner, ScriptCall):
        return NotLaunch("`mpirun` runs a shell script on each process: not followed")
    nproc, nnodes, count_notes = _mpi_counts(values)
    cwd = values.get("wdir") or values.get("wd")
    if inner.runner != "python":
        note = f"`mpirun` starts `{inner.runner}` in each of its processes"
        return replace(inner, notes=(*notes, note, *inner.notes), cwd=cwd or inner.cwd)
    return replace(
        inner,
        runner="mpirun",
        nproc_per_node=nproc,
        nnodes=nnodes,
        rank_variables=MPI_RANK_VARIABLES,
        environment=(*environment, *inner.environment),
        cwd=cwd or inner.cwd,
        notes=(*notes, *count_notes, *inner.notes),
        counted_from=tuple(values.values()),
    )


def _mpi_counts(values: dict[str, Field]) -> tuple[int | None, int | None, list[str]]:
    total = values.get("np") or values.get("n") or values.get("c")
    per_node = next(
        (values[name] for name in ("npernode", "N", "ppn", "perhost") if name in values), None
    )
    mapping = values.get("map-by")
    if per_node is None and mapping is not None and mapping.exact:
        match = re.fullmatch(r"ppr:([0-9]+):node.*", mapping.text, re.IGNORECASE)
        if match:
            per_node = Field(((mapping.segments[0]._replace(text=match.group(1))),), mapping.source)
    hosts = values.get("H") or values.get("host") or values.get("hosts")
    if hosts is not None and hosts.exact and per_node is None:
        names = {entry.split(":")[0] for entry in hosts.text.split(",") if entry}
        host_count = Field(((hosts.segments[0]._replace(text=str(len(names)))),), hosts.source)
        return _spread(None, total, host_count, "mpirun")
    if any(name in values for name in ("hostfile", "machinefile", "f")) and per_node is None:
        return None, None, ["`mpirun` with a host file: the processes per host are in that file"]
    return _spread(per_node, total, None, "mpirun")


_SBATCH = re.compile(r"#SBATCH[ \t]+(.*)")


def slurm_defaults(text: str) -> SlurmDefaults | None:
    """The process counts of a batch script's `#SBATCH` lines (read before its first command,
    as `sbatch` does), which every `srun` in it inherits."""
    values: dict[str, Field] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        match = _SBATCH.match(stripped)
        if match is None:
            continue
        try:
            words = shlex.split(match.group(1), comments=True)
        except ValueError:
            continue
        fields = [Field((Segment(word),), word) for word in words]
        options = read_options(
            fields,
            lambda name: name,
            lambda name: name in SRUN_VALUE_OPTIONS,
            lambda letter: SRUN_SHORT_NAMES.get(letter, letter),
            short_takes_value=lambda letter: letter in SRUN_SHORT_VALUES,
        )
        values.update(options.values)
    if not values:
        return None
    return SlurmDefaults(
        ntasks=values.get("ntasks"),
        nodes=values.get("nodes"),
        per_node=values.get("ntasks-per-node") or values.get("tasks-per-node"),
    )
