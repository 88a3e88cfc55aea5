"""The options of the programs that start Python processes, and reading them off a command.

Tables are written from each program's documentation and `--help` (torch 2.x `torchrun`, Slurm
`srun`, Open MPI / MPICH `mpirun`); an option not listed is taken as a flag without a value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cfglint.launch.shell.values import Field, Segment

# -- torchrun / python -m torch.distributed.run / .launch

TORCH_VALUE_OPTIONS = frozenset(
    {
        "nnodes", "nproc-per-node", "rdzv-backend", "rdzv-endpoint", "rdzv-id", "rdzv-conf",
        "max-restarts", "monitor-interval", "start-method", "event-log-handler", "role",
        "log-dir", "redirects", "tee", "local-ranks-filter", "duplicate-stdout-filters",
        "duplicate-stderr-filters", "node-rank", "master-addr", "master-port", "local-addr",
        "logs-specs", "numa-binding", "signals-to-handle", "shutdown-timeout",
    }
)  # fmt: skip
TORCH_FLAGS = frozenset({"standalone", "module", "no-python", "run-path", "virtual-local-rank"})
TORCH_SHORT = {"m": "module", "r": "redirects", "t": "tee"}
# What torch's elastic agent sets in each worker's environment.
TORCH_RANK_VARIABLES = frozenset(
    {
        "RANK", "LOCAL_RANK", "GROUP_RANK", "ROLE_RANK", "ROLE_NAME", "LOCAL_WORLD_SIZE",
        "WORLD_SIZE", "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
        "TORCHELASTIC_USE_AGENT_STORE",
    }
)  # fmt: skip
DEVICE_COUNT_WORDS = frozenset({"gpu", "auto", "cpu", "xpu", "cuda"})

# -- srun

SRUN_VALUE_OPTIONS = frozenset(
    {
        "account", "acctg-freq", "begin", "cpus-per-task", "comment", "constraint",
        "cluster-constraint", "cores-per-socket", "cpu-bind", "cpu-freq", "container",
        "dependency", "chdir", "error", "export", "gres", "gres-flags", "gpus", "gpus-per-node",
        "gpus-per-task", "gpus-per-socket", "gpu-bind", "gpu-freq", "cpus-per-gpu", "hint",
        "input", "job-name", "jobid", "licenses", "distribution", "mail-type", "mail-user",
        "mem", "mem-per-cpu", "mem-per-gpu", "mem-bind", "mincpus", "mpi", "nodes", "ntasks",
        "ntasks-per-node", "tasks-per-node", "ntasks-per-core", "ntasks-per-socket",
        "ntasks-per-gpu", "nodelist", "exclude", "output", "open-mode", "partition", "qos",
        "reservation", "signal", "sockets-per-node", "threads-per-core", "time", "time-min",
        "tmp", "uid", "gid", "wckey", "network", "switches", "tres-per-task", "prolog",
        "epilog", "task-prolog", "task-epilog", "extra-node-info", "het-group", "clusters",
        "relative", "wait", "core-spec", "thread-spec", "profile", "cpu_bind", "mem_bind",
    }
)  # fmt: skip
SRUN_SHORT_VALUES = frozenset("AbcdDeiJLmnNopqrStTwxWCGMB")
SRUN_RANK_VARIABLES = frozenset(
    {
        "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS", "SLURM_NPROCS",
        "SLURM_NNODES", "SLURM_NODELIST", "SLURM_STEP_NODELIST", "SLURM_JOB_ID",
        "SLURM_STEP_ID", "SLURM_TASKS_PER_NODE",
    }
)  # fmt: skip
SRUN_SHORT_NAMES = {"n": "ntasks", "N": "nodes", "D": "chdir", "c": "cpus-per-task"}

# -- mpirun / mpiexec (Open MPI, MPICH, Intel MPI)

MPI_VALUE_OPTIONS = frozenset(
    {
        "np", "n", "c", "npernode", "N", "ppn", "perhost", "H", "host", "hosts", "hostfile",
        "machinefile", "f", "map-by", "bind-to", "rank-by", "x", "genvlist", "envlist", "wdir",
        "wd", "prefix", "output-filename", "launcher", "iface", "configfile", "bootstrap",
        "default-hostfile", "tune", "am", "path", "s", "stdin", "timeout", "rankfile",
        "report-bindings-file", "cpus-per-proc", "cpus-per-rank", "mca-param-file",
    }
)  # fmt: skip
MPI_TWO_VALUE_OPTIONS = frozenset({"mca", "gmca", "genv", "env", "omca"})
MPI_RANK_VARIABLES = frozenset(
    {
        "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK", "PMI_RANK", "PMI_SIZE",
        "PMI_LOCAL_RANK", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
    }
)  # fmt: skip


def field_after(field: Field, offset: int) -> Field:
    """The part of a field after its first `offset` characters (`--nproc_per_node=` ...)."""
    segments: list[Segment] = []
    skip = offset
    for segment in field.segments:
        if skip <= 0:
            segments.append(segment)
        elif not segment.known:
            return Field((segment,), field.source)
        elif len(segment.text) > skip:
            segments.append(segment._replace(text=segment.text[skip:]))
            skip = 0
        else:
            skip -= len(segment.text)
    return Field(tuple(segments) or (Segment(""),), field.source, field.pattern)


def split_assignment(field: Field) -> tuple[str, Field] | None:
    """`NAME=value` as written to `env`, `mpirun -x`: the name and the value."""
    text = field.text
    head = field.segments[0] if field.segments else None
    if head is None or not head.known or "=" not in head.text:
        return None
    name = text.split("=", 1)[0]
    if not name.isidentifier():
        return None
    return name, field_after(field, len(name) + 1)


def canonical_long(name: str, known_names: frozenset[str]) -> str | None:
    """A long option as argparse reads it: `_` spelled `-`, and a unique prefix allowed."""
    spelled = name.replace("_", "-")
    if spelled in known_names:
        return spelled
    candidates = [option for option in known_names if option.startswith(spelled)]
    return candidates[0] if len(candidates) == 1 else None


def count_value(field: Field | None, default: int | None) -> tuple[int | None, str]:
    """A process or node count from an option value; None and why when it is not a number."""
    if field is None:
        return default, ""
    text = field.text.strip()
    if not field.exact:
        return None, f"`{field.source}`: {field.why or 'not known statically'}"
    if text.isdigit():
        return int(text), ""
    return None, f"`{field.source}` is not a number known statically"


def words(fields: Sequence[Field]) -> list[str]:
    return [field.text for field in fields]


@dataclass
class Options:
    values: dict[str, Field] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    rest: int = 0  # index of the first word after the options


def read_options(
    args: Sequence[Field],
    long_name: Callable[[str], str | None],
    takes_value: Callable[[str], bool],
    short_name: Callable[[str], str | None],
    short_takes_value: Callable[[str], bool] | None = None,
) -> Options:
    """Options up to the first word that is not one (the program to run)."""
    options = Options()
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
