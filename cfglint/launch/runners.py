"""Which commands start Python training processes, and how many: `python`, `torchrun`,
`python -m torch.distributed.launch|run`, `srun`, `mpirun`.

`classify` takes a command's expanded words (after the wrappers of shell_wrappers) and says
what they start: a LaunchSpec, a ScriptCall (another launcher), a NotLaunch with a note worth
telling, or None for any other command.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from cfglint.launch.runner_options import (
    DEVICE_COUNT_WORDS,
    MPI_RANK_VARIABLES,
    MPI_TWO_VALUE_OPTIONS,
    MPI_VALUE_OPTIONS,
    SRUN_RANK_VARIABLES,
    SRUN_SHORT_NAMES,
    SRUN_SHORT_VALUES,
    SRUN_VALUE_OPTIONS,
    TORCH_FLAGS,
    TORCH_RANK_VARIABLES,
    TORCH_SHORT,
    TORCH_VALUE_OPTIONS,
    canonical_long,
    count_value,
    field_after,
    split_assignment,
)
from cfglint.launch.shell_values import Field, Segment
from cfglint.types import LaunchRunner

_PYTHON_NAME = re.compile(r"(?:python|pypy)[0-9.]*")
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_QUIET_MODULES = frozenset(
    {"pip", "ensurepip", "venv", "virtualenv", "http.server", "json.tool", "site", "pytest",
     "compileall", "py_compile", "torch.utils.collect_env", "mim", "pdb"}
)  # fmt: skip
_TORCH_MODULES: dict[str, LaunchRunner] = {
    "torch.distributed.launch": "torch.distributed.launch",
    "torch.distributed.run": "torchrun",
}
_OTHER_LAUNCHERS = {
    "deepspeed": "DeepSpeed's launcher",
    "accelerate": "Hugging Face Accelerate",
    "horovodrun": "Horovod's launcher",
    "mim": "OpenMMLab's `mim`",
}


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """A Python launch as its command line says it, before the shell's context is added."""

    runner: LaunchRunner
    entry: Field
    arguments: tuple[Field, ...]
    nproc_per_node: int | None = 1
    nnodes: int | None = 1
    rank_variables: frozenset[str] = frozenset()
    passes_local_rank: bool = False
    environment: tuple[tuple[str, Field], ...] = ()  # `mpirun -x NAME=VALUE`
    cwd: Field | None = None  # `srun --chdir`, `mpirun -wdir`
    notes: tuple[str, ...] = ()
    counted_from: tuple[Field, ...] = ()  # option values the counts come from
    run_directly: bool = False  # `./train.py`: the script's `#!` line picks the interpreter


@dataclass(frozen=True, slots=True)
class ScriptCall:
    """Another shell launcher: `bash x.sh args`, `./x.sh`, `source x.sh`, `bash -c '...'`."""

    target: Field  # the file, or the code of `bash -c`
    arguments: tuple[Field, ...]
    sourced: bool = False
    code: bool = False  # `bash -c CODE [NAME ARGS...]`


@dataclass(frozen=True, slots=True)
class NotLaunch:
    note: str = ""  # "" when there is nothing worth saying (`python -c`, `pip install`)


Classified = LaunchSpec | ScriptCall | NotLaunch | None


@dataclass(frozen=True, slots=True)
class SlurmDefaults:
    """Process counts from a batch script's `#SBATCH` lines, which `srun` inherits."""

    ntasks: Field | None = None
    nodes: Field | None = None
    per_node: Field | None = None


@dataclass
class _Options:
    values: dict[str, Field] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    rest: int = 0  # index of the first word after the options


def is_python(word: Field) -> bool:
    if word.exact:
        return _PYTHON_NAME.fullmatch(os.path.basename(word.text)) is not None
    return "python" in word.source.lower()


def classify(argv: Sequence[Field], slurm: SlurmDefaults | None = None) -> Classified:
    if not argv:
        return None
    command = argv[0]
    name = os.path.basename(command.text) if command.exact else ""
    if is_python(command):
        spec = _python(argv)
        if isinstance(spec, LaunchSpec) and not command.exact:
            note = f"`{command.source}` is taken as a Python interpreter ({command.why})"
            spec = replace(spec, notes=(*spec.notes, note))
        return spec
    if name == "torchrun":
        return _torch(argv[1:], "torchrun")
    if name == "srun":
        return _srun(argv[1:], slurm or SlurmDefaults())
    if name in ("mpirun", "mpiexec", "orterun", "mpiexec.hydra"):
        return _mpirun(argv[1:])
    if name in _SHELLS:
        return _shell(argv[1:])
    if name in ("source", ".") and command.exact and len(argv) > 1:
        return ScriptCall(argv[1], tuple(argv[2:]), sourced=True)
    if command.exact and "/" in command.text:
        if command.text.endswith((".sh", ".bash")):
            return ScriptCall(command, tuple(argv[1:]))
        if command.text.endswith(".py"):
            note = f"`{command.text}` is run as a program: its `#!` line picks the interpreter"
            return LaunchSpec("python", command, tuple(argv[1:]), notes=(note,), run_directly=True)
    if name in _OTHER_LAUNCHERS:
        starts_training = any(item.text.endswith(".py") for item in argv[1:]) or (
            name == "mim" and len(argv) > 1 and argv[1].text in ("train", "test")
        )
        if starts_training:
            return NotLaunch(f"`{name}` ({_OTHER_LAUNCHERS[name]}) is not read by cfglint")
    return None


# -- python


def _python(argv: Sequence[Field]) -> Classified:
    index = 1
    notes: list[str] = []
    while index < len(argv):
        word = argv[index]
        text = word.text
        if word.many:
            notes.append(f"Python options from `{word.source}` are not known: {word.why}")
            index += 1
            continue
        if not word.exact or not text.startswith("-") or text == "-":
            break
        if text == "--":
            index += 1
            break
        if text.startswith("--"):
            if text in ("--version", "--help"):
                return NotLaunch()
            index += 2 if text == "--check-hash-based-pycs" else 1
            continue
        letters = text[1:]
        for position, letter in enumerate(letters):
            if letter in "hV?":
                return NotLaunch()
            if letter in "cmWX":
                attached = letters[position + 1 :]
                value = attached if attached else None
                if letter == "c":
                    return NotLaunch()
                if letter == "m":
                    rest = index + (1 if attached else 2)
                    module = value if value is not None else _text_at(argv, index + 1)
                    return _module(module, argv, rest, notes)
                if not attached:
                    index += 1
                break
        index += 1
    if index >= len(argv) or argv[index].text == "-":
        return NotLaunch()
    return LaunchSpec("python", argv[index], tuple(argv[index + 1 :]), notes=tuple(notes))


def _text_at(argv: Sequence[Field], index: int) -> str | None:
    if index >= len(argv):
        return None
    return argv[index].text if argv[index].exact else argv[index].source


def _module(module: str | None, argv: Sequence[Field], rest: int, notes: list[str]) -> Classified:
    if module is None:
        return NotLaunch()
    if module in _TORCH_MODULES:
        spec = _torch(argv[rest:], _TORCH_MODULES[module])
        if isinstance(spec, LaunchSpec) and notes:
            return replace(spec, notes=(*notes, *spec.notes))
        return spec
    if module in _QUIET_MODULES or module.split(".")[0] in ("pip", "venv"):
        return NotLaunch()
    return NotLaunch(
        f"`python -m {module}` runs a module: cfglint follows entry scripts, not modules"
    )


# -- torchrun


def _torch(args: Sequence[Field], runner: LaunchRunner) -> Classified:
    known_names = TORCH_VALUE_OPTIONS | TORCH_FLAGS
    if runner == "torch.distributed.launch":
        known_names = known_names | {"use-env"}
    options = _read_options(
        args,
        lambda name: canonical_long(name, known_names),
        lambda name: name in TORCH_VALUE_OPTIONS,
        lambda letter: TORCH_SHORT.get(letter),
    )
    label = "torchrun" if runner == "torchrun" else "python -m torch.distributed.launch"
    if options.rest >= len(args):
        return NotLaunch(f"`{label}` without a script")
    entry = args[options.rest]
    if "module" in options.flags:
        return NotLaunch(
            f"`{label} -m {entry.text}` runs a module: cfglint follows entry scripts, not modules"
        )
    arguments = tuple(args[options.rest + 1 :])
    notes = list(options.notes)
    if "no-python" in options.flags:
        if not is_python(entry):
            return NotLaunch(f"`{label} --no-python {entry.text}` does not start Python")
        inner = _python(args[options.rest :])
        if not isinstance(inner, LaunchSpec):
            return inner
        entry, arguments = inner.entry, inner.arguments
    nproc, nproc_note = _nproc_per_node(options.values.get("nproc-per-node"))
    nnodes, nnodes_note = _nnodes(options.values.get("nnodes"))
    notes += [note for note in (nproc_note, nnodes_note) if note]
    return LaunchSpec(
        runner,
        entry,
        arguments,
        nproc,
        nnodes,
        TORCH_RANK_VARIABLES,
        passes_local_rank=runner == "torch.distributed.launch" and "use-env" not in options.flags,
        notes=tuple(notes),
        counted_from=tuple(
            value for name, value in options.values.items() if name in ("nproc-per-node", "nnodes")
        ),
    )


def _nproc_per_node(value: Field | None) -> tuple[int | None, str]:
    if value is not None and value.exact and value.text.strip() in DEVICE_COUNT_WORDS:
        return None, f"`{value.source}`: one process per device, counted on the host at run time"
    return count_value(value, 1)


def _nnodes(value: Field | None) -> tuple[int | None, str]:
    if value is not None and value.exact and ":" in value.text:
        low, _, high = value.text.strip().partition(":")
        if low == high and low.isdigit():
            return int(low), ""
        return None, f"`{value.source}`: elastic, between {low} and {high} nodes"
    return count_value(value, 1)


# -- srun


def _srun(args: Sequence[Field], slurm: SlurmDefaults) -> Classified:
    options = _read_options(
        args,
        lambda name: name,
        lambda name: name in SRUN_VALUE_OPTIONS,
        lambda letter: SRUN_SHORT_NAMES.get(letter, letter),
        short_takes_value=lambda letter: letter in SRUN_SHORT_VALUES,
    )
    inner = classify(args[options.rest :])
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


# -- mpirun


def _mpirun(args: Sequence[Field]) -> Classified:
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
    inner = classify(args[index:])
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


# -- shells


def _shell(args: Sequence[Field]) -> Classified:
    index = 0
    while index < len(args) and args[index].exact and args[index].text[:1] in ("-", "+"):
        text = args[index].text
        if text in ("-", "--"):
            index += 1
            break
        if text in _SHELL_VALUE_OPTIONS:
            index += 2
            continue
        if not text.startswith("--") and "c" in text[1:]:
            if index + 1 >= len(args):
                return NotLaunch()
            return ScriptCall(args[index + 1], tuple(args[index + 2 :]), code=True)
        if not text.startswith("--") and "s" in text[1:]:
            return NotLaunch()
        index += 1
    if index >= len(args):
        return NotLaunch()
    return ScriptCall(args[index], tuple(args[index + 1 :]))


# -- options


def _read_options(
    args: Sequence[Field],
    long_name: Callable[[str], str | None],
    takes_value: Callable[[str], bool],
    short_name: Callable[[str], str | None],
    short_takes_value: Callable[[str], bool] | None = None,
) -> _Options:
    """Options up to the first word that is not one (the program to run)."""
    options = _Options()
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if word.many:
            options.notes.append(f"options from `{word.source}` are not known: {word.why}")
            index += 1
            continue
        if not text.startswith("-") or text == "-" or not word.segments[0].known:
            break
        if text == "--":
            index += 1
            break
        if text.startswith("--"):
            written, equals, _ = text[2:].partition("=")
            name = long_name(written) or written.replace("_", "-")
            if takes_value(name):
                if equals:
                    options.values[name] = field_after(word, 3 + len(written))
                elif index + 1 < len(args):
                    options.values[name] = args[index + 1]
                    index += 1
            else:
                options.flags.add(name)
            index += 1
            continue
        letter = text[1:2]
        name = short_name(letter) or letter
        has_value = short_takes_value(letter) if short_takes_value else takes_value(name)
        if has_value:
            if len(text) > 2:
                options.values[name] = field_after(word, 2)
            elif index + 1 < len(args):
                options.values[name] = args[index + 1]
                index += 1
        else:
            options.flags.add(name)
        index += 1
    options.rest = index
    return options


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
        options = _read_options(
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
