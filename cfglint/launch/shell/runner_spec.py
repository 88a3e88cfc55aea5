"""What a command line starts, as the runner modules read it (before the shell's context)."""

from __future__ import annotations

from dataclasses import dataclass

from cfglint.launch.shell.values import Field
from cfglint.types import LaunchRunner


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
