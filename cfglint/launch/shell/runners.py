"""Which commands start Python training processes, and how many: `python`, `torchrun`,
`python -m torch.distributed.launch|run`, `srun`, `mpirun`; and which run another launcher.

`classify` takes a command's expanded words (after the wrappers of wrappers.py) and says
what they start: a LaunchSpec, a ScriptCall (another launcher), a NotLaunch with a note worth
telling, or None for any other command.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from cfglint.launch.shell.runner_cluster import mpirun_command, srun_command
from cfglint.launch.shell.runner_python import is_python, python_command, torch_command
from cfglint.launch.shell.runner_spec import (
    Classified,
    LaunchSpec,
    NotLaunch,
    ScriptCall,
    SlurmDefaults,
)
from cfglint.launch.shell.values import Field

_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_OTHER_LAUNCHERS = {
    "deepspeed": "DeepSpeed's launcher",
    "accelerate": "Hugging Face Accelerate",
    "horovodrun": "Horovod's launcher",
    "mim": "OpenMMLab's `mim`",
}


def classify(argv: Sequence[Field], slurm: SlurmDefaults | None = None) -> Classified:
    if not argv:
        return None
    command = argv[0]
    name = os.path.basename(command.text) if command.exact else ""
    if is_python(command):
        spec = python_command(argv)
        if isinstance(spec, LaunchSpec) and not command.exact:
            note = f"`{command.source}` is taken as a Python interpreter ({command.why})"
            spec = replace(spec, notes=(*spec.notes, note))
        return spec
    if name == "torchrun":
        return torch_command(argv[1:], "torchrun")
    if name == "srun":
        return srun_command(argv[1:], slurm or SlurmDefaults(), classify)
    if name in ("mpirun", "mpiexec", "orterun", "mpiexec.hydra"):
        return mpirun_command(argv[1:], classify)
    if name in _SHELLS:
        return _shell(argv[1:])
    if name in ("source", ".") and command.exact and len(argv) > 1:
        return ScriptCall(argv[1], tuple(argv[2:]), sourced=True)
    if command.exact and "/" in command.text:
        if command.text.endswith((".sh", ".bash")):
            return ScriptCall(command, tuple(argv[1:]))
        if command.text.endswith(".py"):
            note = f"`{command.text}` is run as a program: its `#!` line picks the interpreter"
            return LaunchSpec("python", command, tuple(argv[1:]), notes=(note,))
    if name in _OTHER_LAUNCHERS:
        starts_training = any(item.text.endswith(".py") for item in argv[1:]) or (
            name == "mim" and len(argv) > 1 and argv[1].text in ("train", "test")
        )
        if starts_training:
            return NotLaunch(f"`{name}` ({_OTHER_LAUNCHERS[name]}) is not read by cfglint")
    return None


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
