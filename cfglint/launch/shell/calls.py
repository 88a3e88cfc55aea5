"""Running other code: shell functions, launchers called or sourced (`bash tools/dist_train.sh`,
`source env.sh`), code in strings (`eval`, `bash -c`), and command substitutions (`$(...)`),
whose output is known only when it comes from the few commands builtin_commands.py can answer for.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.launch.shell.runner_spec import ScriptCall
from cfglint.launch.shell.session import (
    MAX_CALL_DEPTH,
    MAX_LAUNCHER_DEPTH,
    UNKNOWN,
    Capture,
    Frame,
    Outcome,
    short,
)
from cfglint.launch.shell.state import ShellState
from cfglint.launch.shell.tree import CommandSubstitution, FunctionDef, SimpleCommand
from cfglint.launch.shell.values import (
    Field,
    Positional,
    Value,
    assumptions,
    is_exact,
    known,
    opaque,
    text_of,
    unknown,
)
from cfglint.launch.shell.wrappers import Unwrapped

if TYPE_CHECKING:
    from cfglint.launch.shell.interp import Interpreter


def call_function(
    interpreter: Interpreter,
    function: FunctionDef,
    argv: list[Field],
    prefix: list[tuple[str, Value]],
    node: SimpleCommand,
    state: ShellState,
    frame: Frame,
) -> Outcome:
    if frame.calls >= MAX_CALL_DEPTH:
        interpreter.note(frame, node.span, f"`{function.name}`: calls nested too deeply to follow")
        return UNKNOWN
    saved_positional = state.positional
    saved = {name: state.variables.get(name) for name, _ in prefix}
    for name, value in prefix:
        state.assign(name, (value,), line=node.span.line)
        state.export(name, line=node.span.line)
    state.positional = positional_of(argv[1:])
    inner = replace(
        frame,
        calls=frame.calls + 1,
        via=(*frame.via, frame.source_override or node.span),
        locals={},
    )
    try:
        outcome = interpreter.run_command(function.body, state, inner)
    finally:
        state.positional = saved_positional
        for name, previous in {**(inner.locals or {}), **saved}.items():
            if previous is None:
                state.variables.pop(name, None)
            else:
                state.variables[name] = previous
    if outcome.flow == "return":
        return Outcome("", outcome.status)
    return outcome


def run_code(
    interpreter: Interpreter,
    code: Field,
    state: ShellState,
    frame: Frame,
    node: SimpleCommand,
    what: str,
) -> Outcome:
    """Commands held in a string (`eval`, `bash -c`), run in `state`."""
    if not code.exact:
        if "python" in code.text or "torchrun" in code.text:
            interpreter.note(
                frame, node.span, f"{what} runs code not known statically ({code.why})"
            )
        return UNKNOWN
    if frame.calls >= MAX_CALL_DEPTH:
        interpreter.note(frame, node.span, f"{what}: nested too deeply to follow")
        return UNKNOWN
    commands, syntax = interpreter.session.code(code.text, frame.path, node.span.line)
    if syntax is not None:
        interpreter.note(
            frame, node.span, f"{what}: shell syntax error in its code: {syntax.message}"
        )
    inner = replace(
        frame, calls=frame.calls + 1, source_override=frame.source_override or node.span
    )
    return interpreter.run_commands(commands, state, inner)


def call_script(
    interpreter: Interpreter,
    call: ScriptCall,
    prefix: list[tuple[str, Value]],
    unwrapped: Unwrapped,
    node: SimpleCommand,
    state: ShellState,
    frame: Frame,
) -> Outcome:
    if call.code:
        child = _child_state(prefix, unwrapped, state)
        if call.arguments:
            child.script = call.arguments[0].segments
            child.positional = positional_of(list(call.arguments[1:]))
        else:
            child.positional = Positional(())
        outcome = run_code(interpreter, call.target, child, frame, node, "`bash -c`")
        return Outcome("", outcome.status)
    target = call.target
    if not target.exact:
        interpreter.note(
            frame,
            node.span,
            f"the launcher `{target.source}` is not known statically ({target.why}): not followed",
        )
        return UNKNOWN
    path = _find_launcher(interpreter, target.text, state, frame, node)
    if path is None:
        return UNKNOWN
    via = (*frame.via, frame.source_override or node.span)
    parsed = interpreter.session.load(path, via)
    if parsed is None:
        return UNKNOWN
    real = os.path.realpath(path)
    interpreter.session.active.append(real)
    try:
        inner = Frame(
            path=path,
            folder=path.parent,
            via=via,
            guards=frame.guards,
            background=frame.background,
            capture=frame.capture,
            depth=frame.depth + 1,
            calls=frame.calls,
            slurm=parsed.slurm or frame.slurm,
        )
        if call.sourced:
            saved = state.positional
            if call.arguments:
                state.positional = positional_of(list(call.arguments))
            outcome = interpreter.run_commands(parsed.commands, state, inner)
            if call.arguments:
                state.positional = saved
            return Outcome("", outcome.status) if outcome.flow == "return" else outcome
        child = _child_state(prefix, unwrapped, state)
        child.script = target.segments
        child.positional = positional_of(list(call.arguments))
        outcome = interpreter.run_commands(parsed.commands, child, inner)
        return Outcome("exit" if unwrapped.replaces_shell else "", outcome.status)
    finally:
        interpreter.session.active.pop()


def _child_state(
    prefix: list[tuple[str, Value]], unwrapped: Unwrapped, state: ShellState
) -> ShellState:
    """A new shell process: only exported variables reach it."""
    child = ShellState(
        variables={} if unwrapped.cleared else dict(state.exported()),
        positional=Positional(()),
        script=state.script,
        cwd=state.cwd,
        cwd_unknown=state.cwd_unknown,
    )
    for name in unwrapped.unset:
        child.variables.pop(name, None)
    for name, value in [*prefix, *((n, f.segments) for n, f in unwrapped.environment)]:
        child.assign(name, (value,), line=0)
        child.export(name, line=0)
    return child


def _find_launcher(
    interpreter: Interpreter, written: str, state: ShellState, frame: Frame, node: SimpleCommand
) -> Path | None:
    base = Path(written)
    candidates = [Path(os.path.normpath(state.cwd / base))]
    if not base.is_absolute():
        candidates.append(Path(os.path.normpath(frame.folder / base)))
    found = next((path for path in candidates if os.path.isfile(path)), None)
    if found is None:
        there = next((path for path in candidates if os.path.lexists(path)), None)
        why = "does not exist" if there is None else "is not a regular file"
        interpreter.note(frame, node.span, f"the launcher `{written}` {why}: not followed")
        return None
    real = os.path.realpath(found)
    if not interpreter.session.inside_roots(found):
        interpreter.note(
            frame, node.span, f"the launcher `{written}` is outside the project: not read"
        )
        return None
    if real in interpreter.session.active:
        interpreter.note(frame, node.span, f"`{written}` calls itself: not followed again")
        return None
    if frame.depth + 1 > MAX_LAUNCHER_DEPTH:
        interpreter.note(frame, node.span, f"`{written}`: launchers nested too deeply to follow")
        return None
    if found != candidates[0]:
        interpreter.note(
            frame,
            node.span,
            f"`{written}` is not in the working folder {state.cwd}; the one beside the "
            "launcher is followed",
        )
    return found


# -- command substitution


def substitute(
    interpreter: Interpreter, part: CommandSubstitution, state: ShellState, frame: Frame
) -> Value:
    if frame.calls >= MAX_CALL_DEPTH:
        return unknown(part.source, "computed", "nested too deeply to compute")
    commands, syntax = interpreter.session.code(part.body, frame.path, part.line)
    if syntax is not None:
        return unknown(part.source, "computed", f"`{short(part.source)}` is not valid shell")
    capture = Capture()
    inner = replace(frame, capture=capture, calls=frame.calls + 1)
    interpreter.run_commands(commands, state.copy(), inner)
    if capture.unknown:
        return unknown(part.source, "computed", f"{capture.unknown} is not known statically")
    output: list[Value] = capture.parts
    value = tuple(segment for part_value in output for segment in part_value)
    if not is_exact(value):
        return opaque(value, part.source)
    return known(text_of(value).rstrip("\n"), assumptions(value))


def positional_of(fields: list[Field]) -> Positional:
    """Arguments as a callee sees them; from a word that may be several words on, not known."""
    items: list[Value] = []
    for field in fields:
        if field.many:
            why = f"not known from `{field.source}` on in the call"
            return Positional(tuple(items), len(items), why)
        items.append(field.segments)
    return Positional(tuple(items))
