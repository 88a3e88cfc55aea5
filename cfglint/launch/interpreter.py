"""One path through an entry script, interpreted (never executed).

The config loader's evaluator does the data operations (dicts, lists, strings, `copy.deepcopy`,
ConfigDict semantics); this runner adds what a script does that a config does not: functions of
the same file called with their arguments (lexical scopes, defaults, `return`), `argparse`,
`os.environ`, `Config.fromfile`, `cfg.merge_from_dict`, the Runner, and the calls that decide how
the job runs (vendor imports, `init_dist`, `init_process_group`, CUDA calls, DDP wrappers), which
it records as events in the order they run.

A branch whose test cannot be decided is a choice: `Decisions` says which side this path takes,
and the explorer (explore.py) runs the script once per combination. The same test text gets the
same answer within a path. A call into another module is not followed: its result is unknown,
and it is assumed to leave the config alone (noted when the config is handed to it).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from cfglint.launch import environ
from cfglint.launch.environ import EnvironHandle
from cfglint.launch.functions import MAX_CALL_DEPTH, Return, ScriptFunction, bind_arguments
from cfglint.launch.known_names import MMENGINE_PACKAGES
from cfglint.launch.script_objects import (
    NamespaceHandle,
    ParserHandle,
    RunnerHandle,
    WrapperHandle,
)
from cfglint.loader import Loader
from cfglint.loader.calls import Arguments
from cfglint.loader.effects import forget_values, module_level_nodes, reachable
from cfglint.loader.source import SourceText
from cfglint.loader.statements import StatementRunner, _may_jump, _UncertainJump
from cfglint.loader.textsub import NO_PLACEHOLDERS
from cfglint.loader.values import (
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_unknown,
    freeze,
    thaw,
    to_py,
)
from cfglint.types import (
    Condition,
    ConfigNode,
    DictNode,
    HostFacts,
    Launch,
    LoadProblem,
    Origin,
    ResolvedConfig,
    ScalarNode,
    ScriptEvent,
    ScriptEventKind,
    SequenceNode,
    Span,
    UnknownNode,
)

# What a Config has besides its keys (its methods win over a key of the same name).
CONFIG_ATTRIBUTES = frozenset(
    {"merge_from_dict", "dump", "to_dict", "pretty_text", "text", "filename"}
)


class Decisions:
    """The side each undecidable branch takes on this path: a prefix of choices given, the
    first side (the branch taken) after it. Records every choice made, for the explorer."""

    def __init__(self, prefix: Sequence[int]) -> None:
        self.prefix = tuple(prefix)
        self.made: list[int] = []

    def choose(self) -> int:
        index = len(self.made)
        choice = self.prefix[index] if index < len(self.prefix) else 0
        self.made.append(choice)
        return choice


class PathEnd(Exception):
    """The path stops here: the script exits, raises, or starts the job."""

    def __init__(self, ending: str | None, span: Span | None = None) -> None:
        super().__init__(ending or "the job starts")
        self.ending = ending
        self.span = span


class ConfigFailed(Exception):
    """The config the script loads cannot be resolved: its problems are the launch's."""

    def __init__(self, problems: tuple[LoadProblem, ...]) -> None:
        super().__init__(problems[0].message if problems else "config failed")
        self.problems = problems


@dataclass
class PathRecord:
    """What one path did, read by the explorer when the path is over."""

    conditions: list[Condition] = field(default_factory=list)
    events: list[ScriptEvent] = field(default_factory=list)
    runner_config: VDict | None = None
    runner_loaded: ResolvedConfig | None = None
    loaded: list[ResolvedConfig] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    group_created: bool = False


class ScriptStatements(StatementRunner):
    """The statements, scopes and values of one path of an entry script; the calls it makes are
    script_calls.ScriptRunner's."""

    handlers: ClassVar[dict[type[ast.expr], Callable[..., Val]]] = {}

    def __init__(
        self,
        source: SourceText,
        launch: Launch,
        host: HostFacts,
        loader: Loader,
        decisions: Decisions,
        config_override: Path | None = None,
    ) -> None:
        super().__init__(
            source, (source.path,), VDict({}, _file_origin(source.path)), NO_PLACEHOLDERS
        )
        self.namespace.clear()
        self.launch = launch
        self.host = host
        self.loader = loader
        self.decisions = decisions
        self.record = PathRecord()
        self._assumed: dict[str, bool] = {}
        self._globals_declared: list[set[str]] = []
        self._call_depth = 0
        self.vendor_imported = False
        self._mmengine_imported = False
        self._configs: dict[int, ResolvedConfig] = {}
        self._star_imported = False
        self._config_override = config_override
        origin = _file_origin(source.path)
        self.namespace["__name__"] = ScalarNode("__main__", origin)
        self.namespace["__file__"] = ScalarNode(str(source.path), origin)
        self._environ = Opaque(
            "object", "os.environ", origin, py=environ.environment(launch, origin)
        )

    # -- scopes ------------------------------------------------------------------------------

    def _scope(self) -> dict[str, Val]:
        return self.local_scopes[-1] if self.local_scopes else self.namespace

    def _bind(self, name: str, value: Val) -> None:
        if self._globals_declared and name in self._globals_declared[-1]:
            self.namespace[name] = value
        else:
            self._scope()[name] = value

    def assign(self, target: ast.expr, value: Val) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, value)
        elif isinstance(target, ast.Attribute):
            self._set_attribute(target, value)
        elif isinstance(target, ast.Subscript) and self._set_special_item(target, value):
            return
        else:
            super().assign(target, value)

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and self.local_scopes:
            current = self.evaluate(node.target)
            if isinstance(current, DictNode | SequenceNode):
                current = thaw(current)
            operand = self.evaluate(node.value)
            if isinstance(current, VList) and isinstance(node.op, ast.Add) and not current.is_tuple:
                current.items.extend(self.iterate(operand))
                return
            self._bind(node.target.id, self.binary(node, type(node.op), current, operand))
            return
        super()._stmt_AugAssign(node)

    def _stmt_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name) and self.local_scopes:
                self._scope().pop(target.id, None)
            else:
                super()._stmt_Delete(ast.Delete(targets=[target]))

    def _stmt_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        if self._globals_declared and isinstance(node, ast.Global):
            self._globals_declared[-1].update(node.names)

    _stmt_Nonlocal = _stmt_Global

    def _eval_Name(self, node: ast.Name) -> Val:
        try:
            return super()._eval_Name(node)
        except DefiniteError:
            if self._star_imported:
                raise UnknowableError(f"`{node.id}` may come from a `*` import") from None
            raise

    # -- functions ---------------------------------------------------------------------------

    def _stmt_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        defaults = tuple(self.item(default) for default in node.args.defaults)
        kw_defaults = {
            argument.arg: self.item(default)
            for argument, default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
            if default is not None
        }
        if node.decorator_list:
            self._bind(node.name, self.unknown(node, f"`{node.name}` is decorated"))
            return
        function = ScriptFunction(node, tuple(self.local_scopes), defaults, kw_defaults)
        self._bind(
            node.name, Opaque("function", node.name, self.origin(node), py=node, bound=function)
        )

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node.name, Opaque("class", node.name, self.origin(node)))

    def _stmt_Return(self, node: ast.Return) -> None:
        if not self.local_scopes or self._call_depth == 0:
            raise PathEnd(None)
        value = ScalarNode(None, self.origin(node)) if node.value is None else self.item(node.value)
        raise Return(value)

    def _call_function(self, node: ast.Call, function: ScriptFunction, arguments: Arguments) -> Val:
        if self._call_depth >= MAX_CALL_DEPTH:
            raise UnknowableError(f"calls nested more than {MAX_CALL_DEPTH} deep")
        scope = bind_arguments(function, arguments, self.origin(node))
        saved_scopes = self.local_scopes
        self.local_scopes = [*function.closure, scope]
        self._globals_declared.append(set())
        self._call_depth += 1
        try:
            self.run(function.node.body)
        except Return as returned:
            return returned.value
        finally:
            self._call_depth -= 1
            self._globals_declared.pop()
            self.local_scopes = saved_scopes
        return ScalarNode(None, self.origin(node))

    # -- control flow ------------------------------------------------------------------------

    def truth(self, value: Val) -> bool:
        """Python's truth value, without reading inside containers (an unknown item does not
        make `if cfg.get('x'):` undecidable)."""
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
        if isinstance(value, VDict):
            if value.poison is not None:
                raise UnknowableError(value.poison.reason, value.poison)
            return bool(value.entries)
        if isinstance(value, VList):
            if value.poison is not None:
                raise UnknowableError(value.poison.reason, value.poison)
            return bool(value.items)
        if isinstance(value, Opaque) and value.kind != "object":
            return True
        if isinstance(value, Opaque) and not isinstance(
            value.py, (str, int, float, bool, type(None))
        ):
            return True
        return bool(to_py(value))

    def decide(self, test: ast.expr) -> bool:
        """Which side of a branch this path takes."""
        try:
            return self.truth(self.evaluate(test))
        except DefiniteError:
            raise
        except (UnknowableError, RecursionError):
            pass
        text = self.source.segment(test)
        if text in self._assumed:
            return self._assumed[text]
        taken = self.decisions.choose() == 0
        self._assumed[text] = taken
        self.record.conditions.append(Condition(text, taken, self.source.span(test)))
        return taken

    def _stmt_If(self, node: ast.If) -> None:
        self.run(node.body if self.decide(node.test) else node.orelse)

    def _eval_IfExp(self, node: ast.IfExp) -> Val:
        return self.evaluate(node.body if self.decide(node.test) else node.orelse)

    def _eval_BoolOp(self, node: ast.BoolOp) -> Val:
        result = self.evaluate(node.values[0])
        for value_node, value in zip(node.values, node.values[1:], strict=False):
            try:
                truthy = self.truth(result)
            except UnknowableError:
                truthy = self.decide(value_node)
            if isinstance(node.op, ast.And) != truthy:
                return result
            result = self.evaluate(value)
        return result

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Val:
        if isinstance(node.op, ast.Not):
            return ScalarNode(not self.truth(self.evaluate(node.operand)), self.origin(node))
        return super()._eval_UnaryOp(node)

    def _eval_Compare(self, node: ast.Compare) -> Val:
        if len(node.ops) == 1:
            op = node.ops[0]
            if isinstance(op, ast.In | ast.NotIn):
                found = self._contains(self.evaluate(node.comparators[0]), node.left)
                if found is not None:
                    return ScalarNode(found == isinstance(op, ast.In), self.origin(node))
            if isinstance(op, ast.Is | ast.IsNot) and _is_none(node.comparators[0]):
                left = self.evaluate(node.left)
                is_none = _is_none_value(left)
                return ScalarNode(is_none == isinstance(op, ast.Is), self.origin(node))
        return super()._eval_Compare(node)

    def _contains(self, container: Val, key_node: ast.expr) -> bool | None:
        """`key in container` for the containers whose keys are known without their values."""
        if isinstance(container, DictNode):
            container = thaw(container)
        if isinstance(container, VDict):
            if container.poison is not None:
                raise UnknowableError(container.poison.reason, container.poison)
            return to_py(self.evaluate(key_node)) in container.entries
        if isinstance(container, Opaque) and isinstance(container.py, EnvironHandle):
            return environ.has(container.py, to_py(self.evaluate(key_node)))
        if isinstance(container, Opaque) and isinstance(container.py, NamespaceHandle):
            return to_py(self.evaluate(key_node)) in container.py.values
        return None

    def _stmt_With(self, node: ast.With) -> None:
        for item in node.items:
            value = self.item(item.context_expr)
            if item.optional_vars is not None:
                self.assign(
                    item.optional_vars, self.unknown(item.context_expr, "a context manager's value")
                )
            del value
        self.run(node.body)

    _stmt_AsyncWith = _stmt_With

    def _stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):
            return
        self.evaluate(node.value)

    def forget(self, node: ast.stmt, reason: str) -> None:
        """A statement not followed: the names it binds and the containers it writes into
        become unknown. Calls into other modules are assumed to leave their arguments alone
        (the config included): the loader's rule would make every config key unknown."""
        unknown = self.unknown(node, reason)
        for inner in module_level_nodes(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
                self._bind(inner.id, copy_unknown(unknown))
            elif isinstance(inner, ast.Subscript | ast.Attribute) and isinstance(
                inner.ctx, ast.Store | ast.Del
            ):
                self._poison_path(inner.value, unknown)
        if _may_jump(node):
            raise _UncertainJump(reason)

    def _poison_path(self, node: ast.expr, unknown: UnknownNode) -> None:
        forget_values(self, reachable(self, node), unknown)

    # -- imports -----------------------------------------------------------------------------

    def _stmt_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        origin = self.origin(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                self._imported(alias.name, node)
                if alias.asname is not None:
                    self._bind(alias.asname, Opaque("module", alias.name, origin))
                else:
                    top = alias.name.split(".")[0]
                    self._bind(top, Opaque("module", top, origin))
            return
        module = node.module or ""
        if node.level:
            self._imported("." * node.level + module, node)
            for alias in node.names:
                self._bind(alias.asname or alias.name, self.unknown(node, "a relative import"))
            return
        for alias in node.names:
            if alias.name == "*":
                self._imported(module, node)
                self._star_imported = True
                continue
            self._imported(f"{module}.{alias.name}", node, parent=module)
            self._bind(
                alias.asname or alias.name, Opaque("import", f"{module}.{alias.name}", origin)
            )

    _stmt_ImportFrom = _stmt_Import

    def _imported(self, name: str, node: ast.stmt, parent: str | None = None) -> None:
        top = name.split(".")[0]
        if top in self.host.absent_libraries:
            raise DefiniteError(f"ModuleNotFoundError: No module named '{top}'", ImportError)
        self._event("import", name, node)
        if top in MMENGINE_PACKAGES:
            self._mmengine_imported = True
        vendor = self.host.vendor_import
        if (
            vendor is not None
            and not self._mmengine_imported
            and (name in vendor.modules or (parent is not None and parent in vendor.modules))
        ):
            self.vendor_imported = True

    def _host_cuda(self) -> bool:
        vendor = self.host.vendor_import
        if self.vendor_imported and vendor is not None:
            return vendor.cuda
        return self.host.cuda

    def _host_device(self) -> str:
        vendor = self.host.vendor_import
        if self.vendor_imported and vendor is not None:
            return vendor.mmengine_device
        return self.host.mmengine_device

    # -- events ------------------------------------------------------------------------------

    def _event(
        self,
        kind: ScriptEventKind,
        name: str,
        node: ast.AST,
        values: dict[str, ConfigNode] | None = None,
    ) -> None:
        assert isinstance(node, ast.expr | ast.stmt)
        self.record.events.append(
            ScriptEvent(
                kind,
                name,
                self.source.span(node),
                values or {},
                after_runner=self.record.runner_config is not None,
            )
        )

    # -- attributes --------------------------------------------------------------------------

    def attribute(self, owner: Val, name: str, node: ast.expr) -> Val:
        if isinstance(owner, Opaque) and owner.kind == "object":
            return self._object_attribute(owner, name, node)
        if isinstance(owner, Opaque) and owner.kind in ("module", "import"):
            qualified = f"{owner.name}.{name}"
            if qualified == "os.environ":
                return self._environ
            if qualified == "sys.argv":
                return self._argv(node)
        if isinstance(owner, VDict) and owner.config_dict and name in CONFIG_ATTRIBUTES:
            return self._config_attribute(owner, name, node)
        return super().attribute(owner, name, node)

    def _config_attribute(self, owner: VDict, name: str, node: ast.expr) -> Val:
        """What a Config has that its dict does not (`cfg.merge_from_dict`, `cfg.filename`)."""
        if owner.poison is not None:
            raise UnknowableError(owner.poison.reason, owner.poison)
        if name in ("pretty_text", "text"):
            raise UnknowableError("the config's text")
        if name == "filename":
            loaded = self._configs.get(id(owner))
            if loaded is None:
                raise UnknowableError("the config's file name")
            return ScalarNode(str(loaded.path), self.origin(node))
        return Opaque("method", name, self.origin(node), bound=owner)

    def _object_attribute(self, owner: Opaque, name: str, node: ast.expr) -> Val:
        handle = owner.py
        if isinstance(handle, NamespaceHandle):
            if name in handle.values:
                value = handle.values[name]
                return _at(value, self.origin(node)) if isinstance(value, ScalarNode) else value
            raise DefiniteError(f"AttributeError: 'Namespace' object has no attribute '{name}'")
        if isinstance(handle, ParserHandle | EnvironHandle):
            return Opaque("method", name, self.origin(node), bound=owner)
        if isinstance(handle, RunnerHandle | WrapperHandle):
            if name in ("train", "val", "test", "call_hook", "load_checkpoint", "resume"):
                return Opaque("method", name, self.origin(node), bound=owner)
            raise UnknowableError(f"the Runner's `{name}`")
        raise UnknowableError(f"attribute `{name}` of {owner.name}")

    def _set_attribute(self, target: ast.Attribute, value: Val) -> None:
        owner = self.evaluate(target.value)
        if isinstance(owner, Opaque) and owner.kind in ("module", "import"):
            qualified = f"{owner.name}.{target.attr}"
            self._event("module_setting", qualified, target, {"value": freeze(value)})
            return
        if isinstance(owner, Opaque) and isinstance(owner.py, NamespaceHandle):
            owner.py.values[target.attr] = value
            return
        if isinstance(owner, Opaque) and isinstance(owner.py, RunnerHandle | WrapperHandle):
            return  # `runner.model = ...`: the Runner exists already; its config is taken
        if isinstance(owner, UnknownNode | Opaque):
            raise UnknowableError(f"setting `{target.attr}` on something cfglint does not follow")
        super().assign(target, value)

    def _set_special_item(self, target: ast.Subscript, value: Val) -> bool:
        owner = self.evaluate(target.value)
        if isinstance(owner, Opaque) and isinstance(owner.py, EnvironHandle):
            key = to_py(self.evaluate(target.slice))
            if isinstance(key, str):
                owner.py.known[key] = value
                owner.py.removed.discard(key)
            return True
        return False

    def subscript(self, owner: Val, key: object) -> Val:
        if isinstance(owner, Opaque) and isinstance(owner.py, EnvironHandle):
            return environ.get(owner.py, key, None, owner.origin)
        if isinstance(owner, Opaque) and isinstance(owner.py, NamespaceHandle):
            raise DefiniteError("TypeError: 'Namespace' object is not subscriptable")
        return super().subscript(owner, key)

    def _argv(self, node: ast.expr) -> Val:
        origin = self.origin(node)
        items: list[Val] = [ScalarNode(str(self.launch.entry), origin)]
        for index, word in enumerate(self.launch.arguments):
            if index in self.launch.unresolved:
                items.append(UnknownNode(word, "set by the launcher's environment", origin))
            else:
                items.append(ScalarNode(word, origin))
        return VList(items, False, origin)


# -- helpers ---------------------------------------------------------------------------------


def _file_origin(path: Path) -> Origin:
    return Origin(Span(path, 1, 1, 1, 1), (path,))


def _at(value: ScalarNode, origin: Origin) -> ScalarNode:
    """A value read through a name (`args.launcher`), placed where it is read: the script
    line that uses it is the one to point at (the launcher it came from, if any, follows)."""
    came_from = tuple(path for path in value.origin.chain[-1:] if path not in origin.chain)
    return ScalarNode(value.value, origin._replace(chain=(*origin.chain, *came_from)))


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_none_value(value: Val) -> bool:
    if isinstance(value, ScalarNode):
        return value.value is None
    if isinstance(value, VDict | VList | DictNode | SequenceNode | Opaque):
        return False
    raise UnknowableError(value.reason if isinstance(value, UnknownNode) else "not known")
