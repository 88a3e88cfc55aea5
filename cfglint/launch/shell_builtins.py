"""Builtins that change the simulated shell (`cd`, `export`, `set --`, `shift`, `exit` ...) and the
few commands whose output a launcher captures in `$(...)` and cfglint can know without running
anything (`dirname`, `basename`, `pwd`, `echo`, `printf`, `seq`, `realpath`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.launch.shell_ast import SimpleCommand
from cfglint.launch.shell_conditions import Operand, evaluate_test
from cfglint.launch.shell_expand import Expander, arithmetic_text
from cfglint.launch.shell_parser import assignment_of
from cfglint.launch.shell_session import Frame, Outcome
from cfglint.launch.shell_state import ShellState
from cfglint.launch.shell_values import (
    Field,
    Positional,
    Segment,
    Value,
    is_exact,
    joined,
    known,
    text_of,
    unknown,
)

if TYPE_CHECKING:
    from cfglint.launch.shell_interp import Interpreter

MAX_SEQ = 100_000
_INTEGER = re.compile(r"-?[0-9]+")
_PRINTF_DIRECTIVE = re.compile(r"%(%|s|d|i)")


def _outcome(flow: str = "", status: bool | None = True) -> Outcome:
    return Outcome(flow, status)


Builtin = Callable[["Interpreter", list[Field], SimpleCommand, ShellState, Frame], Outcome]
Output = Callable[["Interpreter", list[Field], ShellState, Frame], Outcome]

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
    from cfglint.launch.shell_interp import positional_of

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
    return interpreter.run_code(code, state, frame, node, "`eval`")


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
    return _outcome(status=evaluate_test(operands))


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


# -- outputs inside `$(...)`


def _write(frame: Frame, value: Value) -> None:
    if frame.capture is not None:
        frame.capture.parts.append(value)


def _unknown_output(frame: Frame, what: str, args: list[Field] | None = None) -> Outcome:
    if frame.capture is not None and not frame.capture.unknown:
        why = next((field.why for field in args or () if not field.exact and field.why), "")
        frame.capture.unknown = f"the output of `{what}`" + (f" ({why})" if why else "")
    return _outcome(status=None)


def _echo(interpreter: Interpreter, argv: list[Field], state: ShellState,
          frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, state
    args = argv[1:]
    newline = True
    while args and args[0].exact and re.fullmatch(r"-[neE]+", args[0].text):
        newline = newline and "n" not in args[0].text
        if "e" in args[0].text and any("\\" in field.text for field in args[1:]):
            return _unknown_output(frame, "echo -e")
        args = args[1:]
    value = joined([field.segments for field in args])
    _write(frame, value + ((Segment("\n"),) if newline else ()))
    return _outcome()


def _printf(interpreter: Interpreter, argv: list[Field], state: ShellState,
            frame: Frame) -> Outcome:  # fmt: skip
    del interpreter
    args = argv[1:]
    target = None
    if len(args) >= 2 and args[0].text == "-v":
        target, args = args[1].text, args[2:]
    if not args or not all(field.exact for field in args):
        return _unknown_output(frame, "printf", args)
    text = _format(args[0].text, [field.text for field in args[1:]])
    if text is None:
        return _unknown_output(frame, "printf")
    if target is not None:
        state.assign(target, (known(text),), line=0)
    else:
        _write(frame, known(text))
    return _outcome()


def _format(template: str, values: list[str]) -> str | None:
    """printf with `%s`, `%d`, `%i`, `%%` and `\\n`, `\\t` only; None for anything else."""
    if re.search(r"%(?!%|s|d|i)", template) or re.search(r"\\(?![nt\\])", template):
        return None
    template = template.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
    directives = len([m for m in _PRINTF_DIRECTIVE.finditer(template) if m.group(1) != "%"])
    out: list[str] = []
    remaining = list(values)
    while True:
        for piece in re.split(r"(%%|%s|%d|%i)", template):
            if piece == "%%":
                out.append("%")
            elif piece in ("%s", "%d", "%i"):
                item = remaining.pop(0) if remaining else ""
                if piece != "%s" and item and not _INTEGER.fullmatch(item):
                    return None
                out.append(item or ("" if piece == "%s" else "0"))
            else:
                out.append(piece)
        if not remaining or not directives:
            return "".join(out)


def _seq(interpreter: Interpreter, argv: list[Field], state: ShellState,
         frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, state
    args = argv[1:]
    separator = "\n"
    if len(args) >= 2 and args[0].text == "-s":
        separator, args = args[1].text, args[2:]
    if not 1 <= len(args) <= 3 or not all(
        field.exact and _INTEGER.fullmatch(field.text) for field in args
    ):
        return _unknown_output(frame, "seq " + " ".join(field.source for field in args), args)
    numbers = [int(field.text) for field in args]
    first, step, last = (
        (1, 1, numbers[0])
        if len(numbers) == 1
        else ((numbers[0], 1, numbers[1]) if len(numbers) == 2 else tuple(numbers))
    )
    if step == 0 or abs(last - first) // abs(step) > MAX_SEQ:
        return _unknown_output(frame, "seq")
    values = range(first, last + (1 if step > 0 else -1), step)
    _write(frame, known(separator.join(str(value) for value in values) + "\n"))
    return _outcome()


def _dirname(interpreter: Interpreter, argv: list[Field], state: ShellState,
             frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, state
    args = [field for field in argv[1:] if field.text != "--"]
    if not args or not all(field.exact for field in args):
        return _unknown_output(frame, "dirname", args)
    _write(frame, known("".join(_folder_of(field.text) + "\n" for field in args)))
    return _outcome()


def _folder_of(path: str) -> str:
    """coreutils `dirname`: `a/b/` gives `a`, `a` gives `.`, `/a` gives `/`."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path.startswith("/") else "."
    head, slash, _ = stripped.rpartition("/")
    if not slash:
        return "."
    return head.rstrip("/") or "/"


def _basename(interpreter: Interpreter, argv: list[Field], state: ShellState,
              frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, state
    args = [field for field in argv[1:] if field.text != "--"]
    suffix = ""
    multiple = False
    if args and args[0].text in ("-s", "--suffix") and len(args) > 1:
        suffix, args, multiple = args[1].text, args[2:], True
    elif args and args[0].text in ("-a", "--multiple"):
        args, multiple = args[1:], True
    elif len(args) == 2:
        suffix, args = args[1].text, args[:1]
    if not args or not all(field.exact for field in args):
        return _unknown_output(frame, "basename", args)
    names = []
    for field in args if multiple else args[:1]:
        name = field.text.rstrip("/").rpartition("/")[2] or ("/" if field.text else "")
        if suffix and name.endswith(suffix) and name != suffix:
            name = name[: -len(suffix)]
        names.append(name + "\n")
    _write(frame, known("".join(names)))
    return _outcome()


def _pwd(interpreter: Interpreter, argv: list[Field], state: ShellState,
         frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, argv
    if state.cwd_unknown:
        _write(frame, unknown("$(pwd)", "computed", state.cwd_unknown))
    else:
        _write(frame, known(f"{state.cwd}\n"))
    return _outcome()


def _realpath(interpreter: Interpreter, argv: list[Field], state: ShellState,
              frame: Frame) -> Outcome:  # fmt: skip
    """`realpath`, `readlink -f`: made absolute and normalised as written (links are not
    followed: cfglint does not look at the file system)."""
    del interpreter
    args = argv[1:]
    if argv[0].text == "readlink" and not any(f.text in ("-f", "-e", "-m") for f in args):
        return _unknown_output(frame, "readlink")
    paths = [field for field in args if not field.text.startswith("-")]
    if any(field.text.startswith("--relative") for field in args):
        return _unknown_output(frame, "realpath --relative-to")
    if not paths or not all(field.exact for field in paths) or state.cwd_unknown:
        return _unknown_output(frame, argv[0].text, paths)
    resolved = [os.path.normpath(state.cwd / field.text) + "\n" for field in paths]
    _write(frame, known("".join(resolved)))
    return _outcome()


OUTPUTS: dict[str, Output] = {
    "echo": _echo,
    "printf": _printf,
    "seq": _seq,
    "dirname": _dirname,
    "basename": _basename,
    "pwd": _pwd,
    "realpath": _realpath,
    "readlink": _realpath,
}
