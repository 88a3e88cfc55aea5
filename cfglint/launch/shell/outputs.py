"""The few commands whose output a launcher captures in `$(...)` and cfglint can know without
running anything: `echo`, `printf`, `seq`, `dirname`, `basename`, `pwd`, `realpath`. Any other
command inside `$(...)` makes the output unknown (interp.py)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from cfglint.launch.shell.session import Frame, Outcome
from cfglint.launch.shell.state import ShellState
from cfglint.launch.shell.values import Assumption, Field, Segment, Value, joined, known, unknown

if TYPE_CHECKING:
    from cfglint.launch.shell.interp import Interpreter

MAX_SEQ = 100_000
_INTEGER = re.compile(r"-?[0-9]+")
_PRINTF_DIRECTIVE = re.compile(r"%(%|s|d|i)")

Output = Callable[["Interpreter", list[Field], ShellState, Frame], Outcome]


def _outcome(status: bool | None = True) -> Outcome:
    return Outcome("", status)


def _taken(args: list[Field]) -> tuple[Assumption, ...]:
    """The defaults the arguments rest on, kept on the output made from them."""
    return tuple(dict.fromkeys(item for field in args for item in field.assumed))


def _write(frame: Frame, value: Value) -> None:
    if frame.capture is not None:
        frame.capture.parts.append(value)


def _unknown_output(frame: Frame, what: str, args: list[Field] | None = None) -> Outcome:
    if frame.capture is not None and not frame.capture.unknown:
        why = next((field.why for field in args or () if not field.exact and field.why), "")
        frame.capture.unknown = f"the output of `{what}`" + (f" ({why})" if why else "")
    return _outcome(None)


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
        _write(frame, known(text, _taken(args)))
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
    _write(frame, known(separator.join(str(value) for value in values) + "\n", _taken(args)))
    return _outcome()


def _dirname(interpreter: Interpreter, argv: list[Field], state: ShellState,
             frame: Frame) -> Outcome:  # fmt: skip
    del interpreter, state
    args = [field for field in argv[1:] if field.text != "--"]
    if not args or not all(field.exact for field in args):
        return _unknown_output(frame, "dirname", args)
    _write(frame, known("".join(_folder_of(field.text) + "\n" for field in args), _taken(args)))
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
    _write(frame, known("".join(names), _taken(args)))
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
    _write(frame, known("".join(resolved), _taken(paths)))
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
