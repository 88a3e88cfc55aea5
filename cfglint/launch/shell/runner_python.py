"""`python [options] script.py args`, `python -m torch.distributed.launch|run`, `torchrun`:
the entry script, its arguments, and the processes per node and nodes of torch's launchers."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace

from cfglint.launch.shell.runner_options import (
    DEVICE_COUNT_WORDS,
    TORCH_FLAGS,
    TORCH_RANK_VARIABLES,
    TORCH_SHORT,
    TORCH_VALUE_OPTIONS,
    canonical_long,
    count_value,
    read_options,
)
from cfglint.launch.shell.runner_spec import Classified, LaunchSpec, NotLaunch
from cfglint.launch.shell.values import Field
from cfglint.types import LaunchRunner

_PYTHON_NAME = re.compile(r"(?:python|pypy)[0-9.]*")
_QUIET_MODULES = frozenset(
    {"pip", "ensurepip", "venv", "virtualenv", "http.server", "json.tool", "site", "pytest",
     "compileall", "py_compile", "torch.utils.collect_env", "mim", "pdb"}
)  # fmt: skip
_TORCH_MODULES: dict[str, LaunchRunner] = {
    "torch.distributed.launch": "torch.distributed.launch",
    "torch.distributed.run": "torchrun",
}


def is_python(word: Field) -> bool:
    if word.exact:
        return _PYTHON_NAME.fullmatch(os.path.basename(word.text)) is not None
    return "python" in word.source.lower()


def python_command(argv: Sequence[Field]) -> Classified:
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
        spec = torch_command(argv[rest:], _TORCH_MODULES[module])
        if isinstance(spec, LaunchSpec) and notes:
            return replace(spec, notes=(*notes, *spec.notes))
        return spec
    if module in _QUIET_MODULES or module.split(".")[0] in ("pip", "venv"):
        return NotLaunch()
    return NotLaunch(
        f"`python -m {module}` runs a module: cfglint follows entry scripts, not modules"
    )


def torch_command(args: Sequence[Field], runner: LaunchRunner) -> Classified:
    known_names = TORCH_VALUE_OPTIONS | TORCH_FLAGS
    if runner == "torch.distributed.launch":
        known_names = known_names | {"use-env"}
    options = read_options(
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
        inner = python_command(args[options.rest :])
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
