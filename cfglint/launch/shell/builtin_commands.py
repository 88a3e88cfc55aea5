"""Builtins that change the simulated shell: `cd`, `export`, `local`, `set --`, `shift`,
`unset`, `read`, `exit`, `eval`, `test` ... (their output, if any, is in outputs.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.launch.shell.calls import positional_of, run_code
from cfglint.launch.shell.conditions import Operand, evaluate_test
from cfglint.launch.shell.expand import Expander, arithmetic_text
from cfglint.launch.shell.parser import assignment_of
from cfglint.launch.shell.session import Frame, Outcome
from cfglint.launch.shell.state import ShellState
from cfglint.launch.shell.tree import SimpleCommand
from cfglint.launch.shell.values import (
    Field,
    Positional,
    Value,
    is_exact,
    joined,
    known,
    text_of,
    unknown,
)

if TYPE_CHECKING:
    from cfglint.launch.shell.interp import Interpreter


def _outcome(flow: str = "", status: bool | None = True) -> Outcome:
    return Outcome(flow, status)


Builtin = Callable[["Interpreter", list[Field], SimpleCommand, ShellState, Frame], Outcome]

# -- working folder


def _cd(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
        frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, frame
    args = [field for field in argv[1:] if field.text not in ("-L", "-P", "-e", "-@", "--")]
    if not args:
        _change_folder(state, None, "`cd` to the home folder")
        return _outcome()
    target = args[0]
    if target.exact and target.text == "-":
        _change_folder(state, state.old_cwd, "`cd -` to a folder not known")
    elif target.exact:
        _change_folder(state, Path(target.text), "")
    else:
        _change_folder(state, None, f"`cd {target.source}` ({target.why})")
    return _outcome()


def _change_folder(state: ShellState, target: Path | None, why: str) -> None:
    state.old_cwd = state.cwd
    if target is None:
        state.cwd_unknown = why
        return
    if target.is_absolute():
        state.cwd_unknown = ""  # an absolute folder is known whatever came before
    state.cwd = Path(os.path.normpath(state.cwd / target))


def _pushd(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
           frame: Frame) -> Outcome:  # fmt: skip
    state.folder_stack.append(state.cwd)
    return _cd(interpreter, argv, node, state, frame)


def _popd(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, argv, node, frame
    if state.folder_stack:
        _change_folder(state, state.folder_stack.pop(), "")
    return _outcome()


# -- arguments and options


def _set(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
         frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, frame
    args = argv[1:]
    index = 0
    while index < len(args):
        text = args[index].text
        if text == "--":
            state.positional = positional_of(args[index + 1 :])
            break
        if not text or text[0] not in "-+" or not args[index].exact:
            state.positional = positional_of(args[index:])
            break
        letters = text[1:]
        if "a" in letters:
            state.allexport = text[0] == "-"
        if "o" in letters and index + 1 < len(args):
            index += 1
            if args[index].text == "allexport":
                state.allexport = text[0] == "-"
        index += 1
    return _outcome()


def _shift(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
           frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, frame
    count = 1
    if len(argv) > 1:
        if not argv[1].exact or not argv[1].text.isdigit():
            state.positional = Positional((), 0, f"after `shift {argv[1].source}`")
            return _outcome(status=None)
        count = int(argv[1].text)
    current = state.positional
    open_at = None if current.open_at is None else max(current.open_at - count, 0)
    state.positional = Positional(current.items[count:], open_at, current.why)
    return _outcome()


def _unset(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
           frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, frame
    functions = any(field.text == "-f" for field in argv[1:])
    for field in argv[1:]:
        if field.text.startswith("-") or not field.exact:
            continue
        if functions:
            state.functions.pop(field.text, None)
        else:
            state.unset(field.text, line=node.span.line)
    return _outcome()


def declare(interpreter: Interpreter, name: str, node: SimpleCommand, state: ShellState,
            frame: Frame, expander: Expander) -> Outcome:  # fmt: skip
    """`export`, `local`, `declare`, `typeset`, `readonly`: their `NAME=value` arguments are
    assignments, not split into words."""
    options: set[str] = set()
    line = node.span.line
    for word in node.words[1:]:
        assignment = assignment_of(word)
        names: list[str] = []
        if assignment is not None:
            _keep_local(name, assignment.name, state, frame)
            interpreter.assign(assignment, state, expander)
            names.append(assignment.name)
        else:
            for field in expander.fields([word]):
                if field.text[:1] in ("-", "+") and field.exact:
                    options.add(field.text)
                elif field.exact and field.text.isidentifier():
                    _keep_local(name, field.text, state, frame)
                    if name == "local":
                        state.unset(field.text, line=line)  # declared, with no value yet
                    names.append(field.text)
        exporting = (name == "export" and "-n" not in options and "-f" not in options) or any(
            option.startswith("-") and "x" in option for option in options
        )
        for variable in names:
            if exporting:
                state.export(variable, line=line)
            elif name == "export" or "+x" in options:
                state.unexport(variable)
    return _outcome()


def _keep_local(builtin: str, name: str, state: ShellState, frame: Frame) -> None:
    if builtin == "local" and frame.locals is not None and name not in frame.locals:
        frame.locals[name] = state.variables.get(name)


def _read(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, frame
    with_value = {"-p", "-a", "-d", "-t", "-n", "-N", "-u", "-i"}
    args = argv[1:]
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        index += 2 if args[index].text in with_value else 1
    names = [field.text for field in args[index:] if field.exact]
    names += [
        args[position + 1].text for position, field in enumerate(args[:-1]) if field.text == "-a"
    ]
    _unknown_variables(state, names or ["REPLY"], "read from the input at run time", node)
    return _outcome(status=None)


def _getopts(interpreter: Interpreter, argv: list[Field], node: SimpleCommand,
             state: ShellState, frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, frame
    if len(argv) > 2 and argv[2].exact:
        _unknown_variables(state, [argv[2].text, "OPTARG"], "an option read by `getopts`", node)
    return _outcome(status=None)


def _unknown_variables(state: ShellState, names: list[str], why: str, node: SimpleCommand) -> None:
    for name in names:
        if name.isidentifier():
            state.assign(name, (unknown(f"${name}", "computed", why),), line=node.span.line)


# -- control


def _exit(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, state, frame
    name = argv[0].text
    status: bool | None = True
    if len(argv) > 1:
        status = argv[1].text == "0" if argv[1].exact else None
    return _outcome("exit" if name == "exit" else "return", status)


def _loop_control(interpreter: Interpreter, argv: list[Field], node: SimpleCommand,
                  state: ShellState, frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, state, frame
    return _outcome(argv[0].text)


def _eval(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    code = Field(joined([field.segments for field in argv[1:]]), node.words[0].source)
    return run_code(interpreter, code, state, frame, node, "`eval`")


def _constant(status: bool) -> Builtin:
    def builtin(interpreter: Interpreter, argv: list[Field], node: SimpleCommand,
                state: ShellState, frame: Frame) -> Outcome:  # fmt: skip
        del interpreter, argv, node, state, frame
        return _outcome(status=status)

    return builtin


def _test(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, state, frame
    args = argv[1:]
    if argv[0].text == "[":
        if not args or args[-1].text != "]":
            return _outcome(status=None)
        args = args[:-1]
    operands = [Operand(field.text if field.exact else None) for field in args]
    assumed = any(field.assumed for field in args)
    return Outcome("", evaluate_test(operands), assumed)


def _let(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
         frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, node, frame
    value: Value = known("0")
    for field in argv[1:]:
        value = arithmetic_text(state, field.segments, field.source)
    if not is_exact(value):
        return _outcome(status=None)
    return _outcome(status=text_of(value) != "0")


def _silent(interpreter: Interpreter, argv: list[Field], node: SimpleCommand, state: ShellState,
            frame: Frame) -> Outcome:  # fmt: skip
    """Commands that print nothing a launcher captures and change nothing cfglint follows."""
    del interpreter, argv, node, state, frame
    return _outcome(status=None)


BUILTINS: dict[str, Builtin] = {
    "cd": _cd,
    "pushd": _pushd,
    "popd": _popd,
    "set": _set,
    "shift": _shift,
    "unset": _unset,
    "read": _read,
    "getopts": _getopts,
    "mapfile": _read,
    "readarray": _read,
    "exit": _exit,
    "return": _exit,
    "break": _loop_control,
    "continue": _loop_control,
    "eval": _eval,
    "true": _constant(True),
    ":": _constant(True),
    "false": _constant(False),
    "test": _test,
    "[": _test,
    "let": _let,
    **dict.fromkeys(
        ("wait", "trap", "shopt", "alias", "unalias", "ulimit", "umask", "hash", "sleep",
         "mkdir", "rm", "touch", "chmod", "ln", "cp", "mv"),
        _silent,
    ),
}  # fmt: skip
