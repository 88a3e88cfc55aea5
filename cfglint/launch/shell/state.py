"""The simulated shell: variables, arguments, working folder and functions at a point of a file.

A subshell, a branch not known to be taken, a called launcher each work on a copy; after an `if`
whose condition is not known, the states of its paths are merged (`merge_states`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from cfglint.launch.shell.tree import FunctionDef
from cfglint.launch.shell.values import Positional, Value, Variable, known, text_of, unknown


@dataclass
class ShellState:
    variables: dict[str, Variable]
    positional: Positional
    script: Value  # $0: the launcher as it was called
    cwd: Path
    cwd_unknown: str = ""  # why the working folder is not known ("" when it is)
    old_cwd: Path | None = None
    folder_stack: list[Path] = field(default_factory=list)
    functions: dict[str, FunctionDef] = field(default_factory=dict)
    allexport: bool = False  # `set -a`: every assignment is exported

    def copy(self) -> ShellState:
        return replace(
            self,
            variables=dict(self.variables),
            folder_stack=list(self.folder_stack),
            functions=dict(self.functions),
        )

    def assign(
        self, name: str, items: tuple[Value, ...], *, line: int, array: bool = False
    ) -> None:
        previous = self.variables.get(name)
        exported = self.allexport or (previous is not None and previous.exported)
        self.variables[name] = Variable(items, exported, True, array, line)

    def export(self, name: str, *, line: int) -> None:
        previous = self.variables.get(name)
        if previous is None:
            # `export X` of a variable the file never set: it stays whatever the environment
            # has; nothing is added to what the file is known to export.
            return
        self.variables[name] = replace(previous, exported=True, line=line or previous.line)

    def unexport(self, name: str) -> None:
        previous = self.variables.get(name)
        if previous is not None:
            self.variables[name] = replace(previous, exported=False)

    def unset(self, name: str, *, line: int) -> None:
        self.variables[name] = Variable((), False, False, False, line)

    def exported(self) -> dict[str, Variable]:
        return {
            name: variable
            for name, variable in self.variables.items()
            if variable.exported and variable.is_set
        }


def merge_states(states: list[ShellState], line: int) -> ShellState:
    """The state after paths that all may have run (the branches of an `if` not decided)."""
    merged = states[0].copy()
    if len(states) == 1:
        return merged
    names = {name for state in states for name in state.variables}
    for name in names:
        merged_variable = _merge_variable(
            name, [state.variables.get(name) for state in states], line
        )
        if merged_variable is None:
            merged.variables.pop(name, None)
        else:
            merged.variables[name] = merged_variable
    if any(state.positional != merged.positional for state in states):
        merged.positional = Positional((), 0, f"the arguments differ between paths (line {line})")
    if any(state.cwd != merged.cwd for state in states) and not merged.cwd_unknown:
        merged.cwd_unknown = f"the working folder differs between paths (line {line})"
    for state in states[1:]:
        merged.functions.update(state.functions)
    return merged


def _merge_variable(name: str, variants: list[Variable | None], line: int) -> Variable | None:
    present = [variable for variable in variants if variable is not None]
    if not present:
        return None
    if len(present) == len(variants) and all(item == present[0] for item in present):
        return present[0]
    exported = any(variable.exported for variable in present)
    if len({(item.items, item.is_set, item.array) for item in present}) == 1:
        only = replace(present[0], exported=exported)
        if len(present) == len(variants) or not only.is_set or only.array:
            return only
        # Set on some paths and left to the environment on the others, as in
        # `[ -z "$X" ] && X=default`: the file's value is taken, as for `${X:-default}`.
        assumption = (name, text_of(only.scalar))
        value = tuple(
            segment._replace(assumed=(*segment.assumed, assumption)) for segment in only.scalar
        )
        return replace(only, items=(value or known("", (assumption,)),))
    why = f"`${name}` is set differently on different paths (line {line})"
    return Variable((unknown(f"${name}", "computed", why),), exported, True, False, line)
