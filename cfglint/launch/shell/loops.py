"""Loops: one process per rank, a few iterations run one by one, or a body run once.

A loop is first run silently to count its iterations and find the state after it. Then its body
is run once with the loop variable standing for "the rank" (an unknown of kind "rank"): a
command it starts in the background with that value in a rank or device variable
(`RANK=$i`, `CUDA_VISIBLE_DEVICES=$i`, `--local_rank=$i`) is one launch of runner "loop", with
one process per iteration. Otherwise the iterations are run one by one (up to MAX_UNROLL), each
starting its own launches; a loop with more iterations, or with a count not known, reports its
body's launches once, with a note.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from cfglint.launch.shell.session import NORMAL, Capture, Frame, Outcome, short
from cfglint.launch.shell.state import ShellState, merge_states
from cfglint.launch.shell.to_launch import LaunchRecord, LoopInfo, uses_rank
from cfglint.launch.shell.tree import ArithmeticFor, CommandList, ForLoop, WhileLoop
from cfglint.launch.shell.values import (
    Assumption,
    Field,
    Segment,
    assumptions,
    is_exact,
    known,
    text_of,
    unknown,
)

if TYPE_CHECKING:
    from cfglint.launch.shell.interp import Interpreter

MAX_COUNT = 1024  # iterations counted; a loop that runs longer has a count not known
MAX_UNROLL = 16  # iterations run one by one, each with its own launches
_ASSIGNED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]")


@dataclass(frozen=True)
class _Plan:
    variables: tuple[str, ...]  # the loop's variable; () for `while`: found by the count
    begin: Callable[[ShellState, int], bool | None]  # before iteration k: go on? None: unknown
    end: Callable[[ShellState], None]  # after each iteration (the step of `for ((...))`)
    body: CommandList
    description: str  # "`for i in ...` (line 3)"
    why: str  # why the values are not known, when they are not
    # Defaults the file takes for variables it does not set, that the count rests on.
    assumed: list[Assumption] = field(default_factory=list)


@dataclass
class _Count:
    iterations: int | None
    changing: tuple[str, ...]  # the variables an iteration changes
    seen: list[str]  # the values of the first of them, iteration by iteration


def run_for(interpreter: Interpreter, node: ForLoop, state: ShellState, frame: Frame) -> Outcome:
    if node.words is None:
        fields = _argument_fields(state)
    else:
        fields = interpreter.expander(state, frame).fields(node.words)
    values = [field.text for field in fields] if all(field.exact for field in fields) else None
    why = next((field.why for field in fields if not field.exact), "")
    if values is not None and len(values) > MAX_COUNT:
        values, why = None, f"more than {MAX_COUNT} values"

    def begin(loop_state: ShellState, iteration: int) -> bool | None:
        if values is None:
            return None
        if iteration >= len(values):
            return False
        loop_state.assign(node.variable, (known(values[iteration]),), line=node.span.line)
        return True

    plan = _Plan(
        (node.variable,),
        begin,
        lambda loop_state: None,
        node.body,
        f"the loop over `${node.variable}` (line {node.span.line})",
        why or "its values are not known",
        [item for each in fields for item in each.assumed],
    )
    return _run_loop(interpreter, plan, state, frame)


def run_arithmetic_for(
    interpreter: Interpreter, node: ArithmeticFor, state: ShellState, frame: Frame
) -> Outcome:
    interpreter.expander(state, frame).arithmetic(node.init, node.init.source)
    assigned = _ASSIGNED.match(node.init.source)
    assumed: list[Assumption] = []

    def begin(loop_state: ShellState, iteration: int) -> bool | None:
        del iteration
        if not node.condition.source.strip():
            return True
        value = interpreter.expander(loop_state, frame).arithmetic(
            node.condition, node.condition.source
        )
        assumed.extend(assumptions(value))
        return text_of(value).strip() != "0" if is_exact(value) else None

    def end(loop_state: ShellState) -> None:
        interpreter.expander(loop_state, frame).arithmetic(node.step, node.step.source)

    plan = _Plan(
        (assigned.group(1),) if assigned else (),
        begin,
        end,
        node.body,
        f"the loop `for (({node.init.source}; {node.condition.source}; {node.step.source}))` "
        f"(line {node.span.line})",
        f"`{node.condition.source}` is not known",
        assumed,
    )
    return _run_loop(interpreter, plan, state, frame)


def run_while(
    interpreter: Interpreter, node: WhileLoop, state: ShellState, frame: Frame
) -> Outcome:
    def begin(loop_state: ShellState, iteration: int) -> bool | None:
        del iteration
        status = interpreter.run_list(node.condition, loop_state, frame).status
        if status is None:
            return None
        return status != node.until

    keyword = "until" if node.until else "while"
    plan = _Plan(
        (),
        begin,
        lambda loop_state: None,
        node.body,
        f"the loop `{keyword} {short(node.condition.source, 60)}` (line {node.span.line})",
        f"`{short(node.condition.source, 60)}` is not known",
    )
    return _run_loop(interpreter, plan, state, frame)


def _run_loop(interpreter: Interpreter, plan: _Plan, state: ShellState, frame: Frame) -> Outcome:
    session = interpreter.session
    quiet_frame = replace(frame, capture=Capture() if frame.capture is not None else None)
    after = state.copy()
    count = _count(interpreter, plan, after, quiet_frame)
    variables = plan.variables or count.changing
    summary = _summary(count)
    probe = state.copy()
    for name in variables:
        why = f"the loop variable `{name}` takes one value per process ({summary})"
        probe.assign(name, (unknown(f"${name}", "rank", why),), line=0)
    with session.collect() as probed:
        interpreter.run_list(plan.body, probe, quiet_frame)
    per_rank = [
        record
        for record in probed
        if record.background
        and record.loop is None
        and record.spec.runner == "python"
        and uses_rank(record)
    ]
    if per_rank:
        why = plan.why if count.iterations is None else ""
        loop = LoopInfo(variables, count.iterations, summary, why, tuple(plan.assumed))
        for record in probed:
            session.emit(
                replace(record, loop=loop) if record in per_rank else _inside(record, plan)
            )
        _finish(state, after, count, probe)
        return NORMAL
    if count.iterations is not None and count.iterations <= MAX_UNROLL:
        return _unroll(interpreter, plan, state, frame, count.iterations)
    for record in probed:
        session.emit(_inside(record, plan, count.iterations))
    _finish(state, after, count, probe)
    return NORMAL


def _count(interpreter: Interpreter, plan: _Plan, state: ShellState, frame: Frame) -> _Count:
    """Run the loop silently on `state`: how many iterations, and what they change."""
    changing: tuple[str, ...] = ()
    seen: list[str] = []
    with interpreter.session.silenced():
        for iteration in range(MAX_COUNT + 1):
            before = dict(state.variables)
            decision = plan.begin(state, iteration)
            if not decision:
                return _Count(None if decision is None else iteration, changing, seen)
            watched = plan.variables or changing
            if watched and watched[0] in state.variables:
                seen.append(text_of(state.variables[watched[0]].scalar))
            outcome = interpreter.run_list(plan.body, state, frame)
            if outcome.flow in ("break", "exit", "return"):
                return _Count(iteration + 1, changing, seen)
            plan.end(state)
            if iteration == 0:
                changing = tuple(
                    name for name, variable in state.variables.items()
                    if before.get(name) != variable
                )  # fmt: skip
                if not plan.variables and changing:
                    seen.append(
                        text_of(before[changing[0]].scalar) if changing[0] in before else ""
                    )
    return _Count(None, changing, seen)


def _unroll(
    interpreter: Interpreter, plan: _Plan, state: ShellState, frame: Frame, iterations: int
) -> Outcome:
    for iteration in range(iterations):
        if not plan.begin(state, iteration):
            break
        outcome = interpreter.run_list(plan.body, state, frame)
        if outcome.flow == "break":
            break
        if outcome.flow in ("exit", "return"):
            return outcome
        plan.end(state)
    return NORMAL


def _finish(state: ShellState, after: ShellState, count: _Count, probe: ShellState) -> None:
    """The state after the loop: the silent run's when it ended, else the paths merged."""
    final = after if count.iterations is not None else merge_states([state, probe], 0)
    state.variables = final.variables
    state.positional = final.positional
    state.cwd = final.cwd
    state.cwd_unknown = final.cwd_unknown
    state.functions = final.functions


def _inside(record: LaunchRecord, plan: _Plan, iterations: int | None = None) -> LaunchRecord:
    if iterations is None:
        note = f"started in {plan.description}: maybe several times, maybe never"
    else:
        note = f"started in {plan.description}, {iterations} times"
    return replace(record, extra_notes=(*record.extra_notes, note))


def _summary(count: _Count) -> str:
    seen = count.seen
    if not seen:
        return "values not known" if count.iterations is None else f"{count.iterations} values"
    if all(re.fullmatch(r"-?[0-9]+", value) for value in seen):
        numbers = [int(value) for value in seen]
        steps = {b - a for a, b in pairwise(numbers)}
        if len(numbers) > 2 and steps == {1}:
            return f"{numbers[0]} to {numbers[-1]}"
    shown = " ".join(seen[:8]) + (" ..." if len(seen) > 8 else "")
    return shown if count.iterations is not None else shown + " ..."


def _argument_fields(state: ShellState) -> list[Field]:
    """`for x; do`: the launcher's arguments."""
    positional = state.positional
    fields = [Field(item, "$@") for item in positional.items[: positional.open_at]]
    if positional.open_at is not None:
        fields.append(Field((Segment("$@", False, "many", positional.why),), "$@"))
    return fields
