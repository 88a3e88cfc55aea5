"""Running a launcher's commands in a simulated shell, without executing anything.

Each command updates the simulated state (variables, arguments, working folder, functions); a
command that starts Python is recorded (`Session.emit`) with the state around it. A condition
that cannot be decided runs each branch on a copy and merges them after, noting the condition on
what the branch starts. Loops are in loops.py; builtins in builtin_commands.py.
"""

from __future__ import annotations

from dataclasses import replace

from cfglint.launch.shell import builtin_commands, calls, loops, outputs
from cfglint.launch.shell.conditions import Operand, evaluate_test
from cfglint.launch.shell.expand import Expander
from cfglint.launch.shell.patterns import matches
from cfglint.launch.shell.runner_python import is_python
from cfglint.launch.shell.runner_spec import LaunchSpec, NotLaunch, ScriptCall
from cfglint.launch.shell.runners import classify
from cfglint.launch.shell.session import (
    NORMAL,
    UNKNOWN,
    Capture,
    Frame,
    Outcome,
    Session,
    short,
)
from cfglint.launch.shell.state import ShellState, merge_states
from cfglint.launch.shell.to_launch import CommandContext, LaunchRecord, is_process_variable
from cfglint.launch.shell.tree import (
    AndOr,
    ArithmeticCommand,
    ArithmeticFor,
    Assignment,
    CaseClause,
    Command,
    CommandList,
    CommandSubstitution,
    ConditionalCommand,
    ForLoop,
    FunctionDef,
    Group,
    IfClause,
    Pipeline,
    SimpleCommand,
    WhileLoop,
)
from cfglint.launch.shell.values import (
    Field,
    Value,
    assumptions,
    is_exact,
    opaque,
    text_of,
    unknown,
)
from cfglint.launch.shell.wrappers import Unwrapped, unwrap
from cfglint.types import Span

DECLARATIONS = frozenset({"export", "local", "declare", "typeset", "readonly"})


class _Substitutions:
    """Command substitutions of one expansion, run on a copy of the state."""

    def __init__(self, interpreter: Interpreter, state: ShellState, frame: Frame) -> None:
        self._interpreter = interpreter
        self._state = state
        self._frame = frame

    def substitute(self, part: CommandSubstitution) -> Value:
        return calls.substitute(self._interpreter, part, self._state, self._frame)


class Interpreter:
    def __init__(self, session: Session) -> None:
        self.session = session

    def expander(self, state: ShellState, frame: Frame) -> Expander:
        return Expander(state, _Substitutions(self, state, frame))

    # -- lists

    def run_commands(
        self, commands: tuple[CommandList, ...] | list[CommandList], state: ShellState, frame: Frame
    ) -> Outcome:
        outcome = NORMAL
        for command in commands:
            outcome = self.run_list(command, state, frame)
            if outcome.flow:
                return outcome
        return outcome

    def run_list(self, node: CommandList, state: ShellState, frame: Frame) -> Outcome:
        outcome = NORMAL
        for item in node.items:
            if item.background:
                # A background job runs in a subshell: what it sets stays there.
                self.run_and_or(item.command, state.copy(), replace(frame, background=True))
                outcome = NORMAL
                continue
            outcome = self.run_and_or(item.command, state, frame)
            if outcome.flow:
                return outcome
        return outcome

    def run_and_or(self, node: AndOr, state: ShellState, frame: Frame) -> Outcome:
        outcome = self.run_pipeline(node.first, state, frame)
        if node.rest:
            outcome = _branching(outcome)
        previous = node.first
        for operator, pipeline in node.rest:
            if outcome.flow:
                return outcome
            wanted = operator == "&&"
            if outcome.status is (not wanted):
                previous = pipeline
                continue
            if outcome.status is wanted:
                outcome = _branching(self.run_pipeline(pipeline, state, frame))
            else:
                verb = "succeeds" if wanted else "fails"
                guard = f"`{short(previous.source)}` {verb}"
                branch = state.copy()
                result = self.run_pipeline(
                    pipeline, branch, replace(frame, guards=(*frame.guards, guard))
                )
                if not result.flow:
                    _overwrite(state, merge_states([state, branch], pipeline.span.line))
                outcome = Outcome("", None)
            previous = pipeline
        return outcome

    def run_pipeline(self, node: Pipeline, state: ShellState, frame: Frame) -> Outcome:
        if len(node.commands) == 1:
            outcome = self.run_command(node.commands[0], state, frame)
        else:
            # Every part of a pipeline runs in a subshell; only the last one's output is the
            # pipeline's output.
            for command in node.commands[:-1]:
                inner = replace(frame, capture=Capture() if frame.capture else None)
                self.run_command(command, state.copy(), inner)
            outcome = self.run_command(node.commands[-1], state.copy(), frame)
            if frame.capture is not None:
                # The last command reads the pipe: its output is not known (`... | wc -l`).
                frame.capture.unknown = f"the output of `{short(node.source)}`"
            outcome = Outcome("", outcome.status)
        if node.negated and outcome.status is not None:
            outcome = Outcome(outcome.flow, not outcome.status, outcome.assumed)
        return outcome

    # -- commands

    def run_command(self, node: Command, state: ShellState, frame: Frame) -> Outcome:
        if isinstance(node, SimpleCommand):
            return self.run_simple(node, state, frame)
        if isinstance(node, Group):
            if node.subshell:
                outcome = self.run_list(node.body, state.copy(), frame)
                return Outcome("", outcome.status) if outcome.flow == "exit" else outcome
            return self.run_list(node.body, state, frame)
        if isinstance(node, IfClause):
            return self._run_if(node, state, frame)
        if isinstance(node, CaseClause):
            return self._run_case(node, state, frame)
        if isinstance(node, ForLoop):
            return loops.run_for(self, node, state, frame)
        if isinstance(node, ArithmeticFor):
            return loops.run_arithmetic_for(self, node, state, frame)
        if isinstance(node, WhileLoop):
            return loops.run_while(self, node, state, frame)
        if isinstance(node, FunctionDef):
            state.functions[node.name] = node
            return NORMAL
        if isinstance(node, ArithmeticCommand):
            value = self.expander(state, frame).arithmetic(node.expression, node.expression.source)
            return Outcome("", _arithmetic_status(value), bool(assumptions(value)))
        return self._run_conditional(node, state, frame)

    def _run_if(self, node: IfClause, state: ShellState, frame: Frame) -> Outcome:
        paths: list[ShellState] = []
        guards = frame.guards
        for condition, body in node.branches:
            outcome = _branching(self.run_list(condition, state, replace(frame, guards=guards)))
            if outcome.flow:
                return outcome
            if outcome.status is False:
                continue
            text = short(condition.source)
            if outcome.status is True:
                result = self.run_list(body, state, replace(frame, guards=guards))
                return self._join(state, paths, result, node.span.line)
            branch = state.copy()
            result = self.run_list(
                body, branch, replace(frame, guards=(*guards, f"`{text}` succeeds"))
            )
            if not result.flow:
                paths.append(branch)
            guards = (*guards, f"`{text}` fails")
        result = NORMAL
        if node.otherwise is not None:
            result = self.run_list(node.otherwise, state, replace(frame, guards=guards))
        return self._join(state, paths, result, node.span.line)

    def _join(
        self, state: ShellState, paths: list[ShellState], last: Outcome, line: int
    ) -> Outcome:
        """After a branching command: the state of the paths that go on, merged."""
        if last.flow:
            if not paths:
                return last
            _overwrite(state, merge_states(paths, line))
            return UNKNOWN
        if paths:
            _overwrite(state, merge_states([state, *paths], line))
            return UNKNOWN
        return last

    def _run_case(self, node: CaseClause, state: ShellState, frame: Frame) -> Outcome:
        expander = self.expander(state, frame)
        subject = expander.value(node.subject)
        if assumptions(subject):  # the environment may set it otherwise: no arm is decided
            subject = unknown(node.subject.source, "outside", "")
        paths: list[ShellState] = []
        guards = frame.guards
        for arm in node.arms:
            decided: bool | None = False
            for pattern in arm.patterns:
                regex = expander.pattern(pattern)
                if regex == ".*":
                    decided = True
                elif regex is None or not is_exact(subject):
                    decided = None if decided is False else decided
                elif matches(regex, text_of(subject)):
                    decided = True
                if decided is True:
                    break
            if decided is False:
                continue
            written = " | ".join(pattern.source for pattern in arm.patterns)
            if decided is True:
                result = self.run_list(arm.body, state, replace(frame, guards=guards))
                return self._join(state, paths, result, node.span.line)
            guard = f"`{node.subject.source}` matches `{written}`"
            branch = state.copy()
            result = self.run_list(arm.body, branch, replace(frame, guards=(*guards, guard)))
            if not result.flow:
                paths.append(branch)
            guards = (*guards, f"`{node.subject.source}` does not match `{written}`")
        return self._join(state, paths, NORMAL, node.span.line)

    def _run_conditional(
        self, node: ConditionalCommand, state: ShellState, frame: Frame
    ) -> Outcome:
        self.session.tick()
        expander = self.expander(state, frame)
        operands: list[Operand] = []
        assumed = False
        for index, word in enumerate(node.words):
            literal = word.literal()
            if literal in ("&&", "||", "(", ")", "!", "<", ">"):
                operands.append(Operand(literal))
                continue
            value = expander.value(word)
            assumed = assumed or bool(assumptions(value))
            after_match = index and node.words[index - 1].literal() in ("==", "=", "!=")
            pattern = expander.pattern(word) if after_match else None
            operands.append(Operand(text_of(value) if is_exact(value) else None, pattern))
        return Outcome("", evaluate_test(operands, conditional=True), assumed)

    # -- simple commands

    def run_simple(self, node: SimpleCommand, state: ShellState, frame: Frame) -> Outcome:
        self.session.tick()
        expander = self.expander(state, frame)
        first = node.words[0].literal() if node.words else None
        if first in DECLARATIONS and not node.assignments:
            return builtin_commands.declare(self, first or "", node, state, frame, expander)
        fields = expander.fields(node.words)
        if not fields:
            for assignment in node.assignments:
                self.assign(assignment, state, expander)
            return NORMAL
        prefix = [
            (assignment.name, self.assignment_value(assignment, expander))
            for assignment in node.assignments
            if assignment.items is None
        ]
        return self._dispatch(fields, prefix, node, state, frame)

    def assign(self, assignment: Assignment, state: ShellState, expander: Expander) -> None:
        line = assignment.value.span.line if assignment.value is not None else 0
        if assignment.items is not None:
            items = tuple(
                field.segments for field in expander.fields(assignment.items) if not field.many
            )
            previous = state.variables.get(assignment.name)
            if assignment.append and previous is not None and previous.is_set:
                items = previous.items + items
            state.assign(assignment.name, items, line=line, array=True)
            return
        value = self.assignment_value(assignment, expander)
        previous = state.variables.get(assignment.name)
        if assignment.index is not None and previous is not None and previous.array:
            index_text = assignment.index.source
            if index_text.isdigit() and int(index_text) <= len(previous.items):
                changed = list(previous.items)
                position = int(index_text)
                changed[position : position + 1] = [value]
                state.assign(assignment.name, tuple(changed), line=line, array=True)
                return
        if assignment.append:
            if previous is None:
                value = opaque(unknown("", "outside", ""), f"${assignment.name}") + value
            elif previous.is_set:
                value = previous.scalar + value
        state.assign(assignment.name, (value,), line=line, array=False)

    def assignment_value(self, assignment: Assignment, expander: Expander) -> Value:
        if assignment.value is None:
            return ()
        return expander.value(assignment.value)

    def _dispatch(
        self,
        fields: list[Field],
        prefix: list[tuple[str, Value]],
        node: SimpleCommand,
        state: ShellState,
        frame: Frame,
    ) -> Outcome:
        unwrapped = unwrap(fields)
        if unwrapped.not_run:
            return UNKNOWN
        argv = list(unwrapped.argv)
        if not argv:
            return NORMAL
        head = argv[0]
        name = head.text if head.exact else ""
        if name in state.functions and not unwrapped.environment:
            return calls.call_function(
                self, state.functions[name], argv, prefix, node, state, frame
            )
        builtin = builtin_commands.BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, argv, node, state, frame)
        if name in outputs.OUTPUTS and (frame.capture is not None or name == "printf"):
            return outputs.OUTPUTS[name](self, argv, state, frame)
        classified = classify(argv, frame.slurm)
        if frame.capture is not None and not frame.capture.unknown:
            frame.capture.unknown = f"the output of `{short(' '.join(f.source for f in argv))}`"
        if isinstance(classified, LaunchSpec):
            if frame.capture is None:
                self._record(classified, prefix, unwrapped, node, state, frame)
            return Outcome("exit" if unwrapped.replaces_shell else "", None)
        if isinstance(classified, ScriptCall):
            return calls.call_script(self, classified, prefix, unwrapped, node, state, frame)
        if isinstance(classified, NotLaunch) and classified.note:
            self.note(frame, node.span, classified.note)
        elif (
            classified is None
            and not (head.exact or is_python(head))
            and any(field.text.endswith(".py") for field in argv[1:])
        ):
            self.note(
                frame,
                node.span,
                f"the command `{head.source}` is not known statically ({head.why}): "
                "what it runs is not read",
            )
        if unwrapped.replaces_shell:
            return Outcome("exit", None)
        return UNKNOWN

    def note(self, frame: Frame, span: Span, message: str) -> None:
        self.session.note(frame.source_override or span, message, frame.via)

    def _record(
        self,
        spec: LaunchSpec,
        prefix: list[tuple[str, Value]],
        unwrapped: Unwrapped,
        node: SimpleCommand,
        state: ShellState,
        frame: Frame,
    ) -> None:
        environment: dict[str, Value] = {}
        if not unwrapped.cleared:
            environment.update(
                (name, variable.scalar) for name, variable in state.exported().items()
            )
        environment.update(prefix)
        for name in unwrapped.unset:
            environment.pop(name, None)
        environment.update((name, field.segments) for name, field in unwrapped.environment)
        unexported = tuple(
            (name, variable.line)
            for name, variable in state.variables.items()
            if variable.is_set and not variable.exported and is_process_variable(name)
        )
        context = CommandContext(
            cwd=state.cwd,
            cwd_unknown=state.cwd_unknown,
            launcher_folder=frame.folder,
            environment=tuple(environment.items()),
            unexported=unexported,
            source=frame.source_override or node.span,
            via=frame.via,
            guards=frame.guards,
        )
        self.session.emit(LaunchRecord(spec, context, frame.background))

    # -- functions, launchers, code in strings


def _overwrite(state: ShellState, merged: ShellState) -> None:
    state.variables = merged.variables
    state.positional = merged.positional
    state.cwd = merged.cwd
    state.cwd_unknown = merged.cwd_unknown
    state.functions = merged.functions


def _branching(outcome: Outcome) -> Outcome:
    """A status that decides a branch: one resting on a default taken is not known."""
    return Outcome(outcome.flow, None) if outcome.assumed else outcome


def _arithmetic_status(value: Value) -> bool | None:
    if not is_exact(value):
        return None
    return text_of(value).strip() not in ("0", "")
