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

from cfglint.launch.arguments import (
    Parsed,
    ParseExit,
    ParseFailure,
    ParserCall,
    ParserModel,
    ScriptCrash,
    Unknown,
    parse,
)
from cfglint.launch.merge_options import merge_from_dict
from cfglint.launch.script_objects import (
    CONFIG_CLASSES,
    CONFIG_DICT_CLASSES,
    CUDA_QUERIES,
    DDP_CLASSES,
    DICT_ACTIONS,
    EXITS,
    GET_DEVICE,
    INIT_DIST,
    INIT_PROCESS_GROUP,
    IS_INITIALIZED,
    MMENGINE_PACKAGES,
    RUNNER_CLASSES,
    EnvironHandle,
    NamespaceHandle,
    ParserHandle,
    RunnerHandle,
    WrapperHandle,
    is_runner_from_cfg,
    is_runners_build,
)
from cfglint.loader import Loader
from cfglint.loader.builtins_table import BUILTIN_NAMES
from cfglint.loader.calls import Arguments, call_arguments, dispatch_call
from cfglint.loader.effects import module_level_nodes
from cfglint.loader.source import SourceText
from cfglint.loader.statements import StatementRunner
from cfglint.loader.textsub import NO_PLACEHOLDERS
from cfglint.loader.values import (
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_data,
    copy_unknown,
    freeze,
    from_py,
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

MAX_CALL_DEPTH = 24
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


class _Return(Exception):
    def __init__(self, value: Val) -> None:
        super().__init__("return")
        self.value = value


@dataclass
class ScriptFunction:
    """A function of the script: its definition, the scopes it closes over, its defaults."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    closure: tuple[dict[str, Val], ...]
    defaults: tuple[Val, ...]
    kw_defaults: dict[str, Val]


@dataclass
class LoadedConfig:
    resolved: ResolvedConfig


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


class ScriptRunner(StatementRunner):
    """Runs one path of an entry script (see the module docstring)."""

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
        self._environ = Opaque("object", "os.environ", origin, py=_environment(launch, origin))

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
        raise _Return(value)

    def _call_function(self, node: ast.Call, function: ScriptFunction, arguments: Arguments) -> Val:
        if self._call_depth >= MAX_CALL_DEPTH:
            raise UnknowableError(f"calls nested more than {MAX_CALL_DEPTH} deep")
        scope = _bind_arguments(function, arguments, self.origin(node))
        saved_scopes = self.local_scopes
        self.local_scopes = [*function.closure, scope]
        self._globals_declared.append(set())
        self._call_depth += 1
        try:
            self.run(function.node.body)
        except _Return as returned:
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
            return _environ_has(container.py, to_py(self.evaluate(key_node)))
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
        super_jump = _may_jump(node)
        if super_jump:
            from cfglint.loader.statements import _UncertainJump

            raise _UncertainJump(reason)

    def _poison_path(self, node: ast.expr, unknown: UnknownNode) -> None:
        from cfglint.loader.effects import forget_values, reachable

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
            return _environ_get(owner.py, key, None, owner.origin)
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

    # -- calls -------------------------------------------------------------------------------

    def _eval_Call(self, node: ast.Call) -> Val:
        func = node.func
        self._note_device_calls(node)
        if isinstance(func, ast.Name) and self.lookup_name(func.id) is None:
            if func.id in ("exit", "quit"):
                raise PathEnd("the script exits", self.source.span(node))
            if func.id in ("hasattr", "getattr", "vars") and func.id in BUILTIN_NAMES:
                return self._reflection(node, func.id)
        function = self.evaluate(func)
        if isinstance(function, Opaque) and isinstance(function.bound, ScriptFunction):
            return self._call_function(node, function.bound, call_arguments(self, node))
        if isinstance(function, Opaque) and function.kind == "method":
            special = self._method_call(node, function)
            if special is not None:
                return special
        if isinstance(function, Opaque) and function.kind in ("module", "import"):
            special = self._named_call(node, function.name)
            if special is not None:
                return special
        arguments = call_arguments(self, node)
        return dispatch_call(self, node, function, arguments)

    def _note_device_calls(self, node: ast.Call) -> None:
        """`.cuda()` and `.to('cuda...')` on any object: the object is usually unknown (the
        model), the call is what matters."""
        func = node.func
        if not isinstance(func, ast.Attribute) or self._host_cuda():
            return
        if func.attr == "cuda":
            self._event("cuda_call", ".cuda()", node)
        elif func.attr == "to" and node.args and _names_cuda(self, node.args[0]):
            self._event("cuda_call", ".to('cuda')", node)

    def _reflection(self, node: ast.Call, name: str) -> Val:
        arguments = call_arguments(self, node)
        values = arguments.positional
        origin = self.origin(node)
        if name == "vars":
            (value,) = values
            if isinstance(value, Opaque) and isinstance(value.py, NamespaceHandle):
                return VDict(_entries(value.py.values), origin)
            raise UnknowableError("vars() of something that is not the parsed arguments")
        owner, attribute_name = values[0], to_py(values[1])
        if not isinstance(attribute_name, str):
            raise DefiniteError("TypeError: attribute name must be string")
        try:
            found = self.attribute(owner, attribute_name, node)
        except DefiniteError as error:
            if not error.reason.startswith("AttributeError"):
                raise
            if name == "hasattr":
                return ScalarNode(False, origin)
            if len(values) > 2:
                return values[2]
            raise
        if name == "hasattr":
            return ScalarNode(True, origin)
        return found

    def _named_call(self, node: ast.Call, name: str) -> Val | None:
        origin = self.origin(node)
        if name in CONFIG_CLASSES or name.endswith((".Config.fromfile", ".Config.fromstring")):
            return self._config_call(node, name)
        if name in CONFIG_DICT_CLASSES:
            arguments = call_arguments(self, node)
            made = dispatch_call(self, node, Opaque("builtin", "dict", origin), arguments)
            converted = copy_data(made, "config_dict")
            return converted
        if is_runner_from_cfg(name) or is_runners_build(name):
            arguments = call_arguments(self, node)
            config = (
                arguments.positional[0] if arguments.positional else arguments.keywords.get("cfg")
            )
            return self._runner(node, name, config)
        if name in RUNNER_CLASSES:
            arguments = call_arguments(self, node)
            return self._runner(node, name, _runner_keywords(arguments, origin))
        if name == "argparse.ArgumentParser":
            arguments = call_arguments(self, node)
            model = ParserModel(settings=_plain_keywords(arguments.keywords))
            return Opaque("object", "ArgumentParser", origin, py=ParserHandle(model))
        if name in INIT_DIST:
            arguments = call_arguments(self, node)
            launcher = (
                arguments.positional[0]
                if arguments.positional
                else arguments.keywords.get("launcher")
            )
            backend = (
                arguments.positional[1]
                if len(arguments.positional) > 1
                else arguments.keywords.get("backend")
            )
            values = {
                "launcher": freeze(launcher)
                if launcher is not None
                else UnknownNode("?", "no launcher", origin)
            }
            if backend is not None:
                values["backend"] = freeze(backend)
            self._event("init_dist", name, node, values)
            self.record.group_created = True
            return ScalarNode(None, origin)
        if name in INIT_PROCESS_GROUP:
            arguments = call_arguments(self, node)
            backend = (
                arguments.positional[0]
                if arguments.positional
                else arguments.keywords.get("backend")
            )
            values = {} if backend is None else {"backend": freeze(backend)}
            self._event("process_group", name, node, values)
            self.record.group_created = True
            return ScalarNode(None, origin)
        if name in IS_INITIALIZED:
            call_arguments(self, node)
            return ScalarNode(self.record.group_created, origin)
        if name in CUDA_QUERIES:
            call_arguments(self, node)
            if name.endswith("is_available"):
                return ScalarNode(self._host_cuda(), origin)
            if not self._host_cuda():
                return ScalarNode(0, origin)
            raise UnknowableError("the number of devices on the host")
        if name.startswith("torch.cuda.") and not self._host_cuda():
            call_arguments(self, node)
            self._event("cuda_call", name, node)
            raise UnknowableError(f"`{name}` on a host without CUDA")
        if name == "torch.device":
            arguments = call_arguments(self, node)
            if (
                arguments.positional
                and not self._host_cuda()
                and _value_names_cuda(arguments.positional[0])
            ):
                self._event("cuda_call", "torch.device('cuda')", node)
            raise UnknowableError("a torch.device")
        if name in GET_DEVICE:
            call_arguments(self, node)
            return ScalarNode(self._host_device(), origin)
        if name in DDP_CLASSES:
            return self._wrapper(node, name)
        if name in EXITS:
            raise PathEnd("the script exits", self.source.span(node))
        if name in ("os.getenv", "os.environ.get"):
            arguments = call_arguments(self, node)
            default = arguments.positional[1] if len(arguments.positional) > 1 else None
            handle = self._environ.py
            assert isinstance(handle, EnvironHandle)
            return _environ_get(handle, to_py(arguments.positional[0]), default, origin)
        return None

    def _config_call(self, node: ast.Call, name: str) -> Val:
        origin = self.origin(node)
        arguments = call_arguments(self, node)
        if name.endswith(".fromstring"):
            raise UnknowableError("a config built from a string")
        if not name.endswith(".fromfile"):
            source = (
                arguments.positional[0]
                if arguments.positional
                else arguments.keywords.get("cfg_dict")
            )
            if source is None:
                return VDict({}, origin, config_dict=True)
            made = copy_data(source, "deepcopy")
            if isinstance(made, DictNode):
                made = thaw(made)
            if not isinstance(made, VDict):
                raise UnknowableError("a Config built from something that is not a dict")
            return copy_data(VDict(dict(made.entries), origin), "config_dict")
        target = (
            arguments.positional[0] if arguments.positional else arguments.keywords.get("filename")
        )
        if target is None:
            raise DefiniteError("TypeError: fromfile() missing 'filename'")
        path = self._config_path(target)
        result = self.loader.load(path)
        if not isinstance(result, ResolvedConfig):
            raise ConfigFailed(result.problems)
        self.record.loaded.append(result)
        config = thaw(result.root)
        assert isinstance(config, VDict)
        self._configs[id(config)] = result
        return config

    def _config_path(self, target: Val) -> Path:
        if self._config_override is not None:
            return self._config_override
        try:
            text = to_py(target)
        except UnknowableError as error:
            raise PathEnd(f"the config's path is not known statically ({error.reason})") from None
        if not isinstance(text, str):
            raise DefiniteError("TypeError: the config path is not a string")
        path = Path(text)
        return path if path.is_absolute() else self.launch.cwd / path

    def _runner(self, node: ast.Call, name: str, config: Val | None) -> Val:
        origin = self.origin(node)
        if isinstance(config, DictNode):
            config = thaw(config)
        if self.record.runner_config is None:
            if not isinstance(config, VDict):
                raise PathEnd(
                    "the Runner gets a config cfglint cannot follow", self.source.span(node)
                )
            self.record.runner_config = copy_data(config, "deepcopy")  # type: ignore[assignment]
            self.record.runner_loaded = self._configs.get(id(config)) or (
                self.record.loaded[-1] if self.record.loaded else None
            )
            self._event("runner", name, node)
        return Opaque("object", "Runner", origin, py=RunnerHandle(name))

    def _wrapper(self, node: ast.Call, name: str) -> Val:
        arguments = call_arguments(self, node)
        origin = self.origin(node)
        positional = arguments.positional
        values: dict[str, ConfigNode] = {}
        for index, key in ((1, "device_ids"), (2, "output_device")):
            given = arguments.keywords.get(key)
            if given is None and len(positional) > index:
                given = positional[index]
            if given is not None:
                values[key] = freeze(given)
        self._event("ddp_wrap", name, node, values)
        return Opaque("object", name.rsplit(".", 1)[-1], origin, py=WrapperHandle(name))

    def _method_call(self, node: ast.Call, method: Opaque) -> Val | None:
        owner = method.bound
        name = method.name
        origin = self.origin(node)
        if isinstance(owner, Opaque) and isinstance(owner.py, ParserHandle):
            return self._parser_call(node, owner.py, name)
        if isinstance(owner, Opaque) and isinstance(owner.py, EnvironHandle):
            arguments = call_arguments(self, node)
            return _environ_method(owner.py, name, arguments, origin)
        if isinstance(owner, Opaque) and isinstance(owner.py, RunnerHandle | WrapperHandle):
            call_arguments(self, node)
            if name in ("train", "val", "test"):
                raise PathEnd(None)
            raise UnknowableError(f"the Runner's `{name}()`")
        if isinstance(owner, VDict) and owner.config_dict and name in ("merge_from_dict", "dump"):
            arguments = call_arguments(self, node)
            if name == "merge_from_dict":
                options = (
                    arguments.positional[0]
                    if arguments.positional
                    else arguments.keywords["options"]
                )
                if isinstance(options, DictNode):
                    options = thaw(options)
                if not isinstance(options, VDict):
                    raise UnknowableError("merge_from_dict() of something that is not a known dict")
                if self.launch.source is None:
                    rebased = _rebased(options, origin)
                    assert isinstance(rebased, VDict)
                    options = rebased
                merge_from_dict(owner, options)
            return ScalarNode(None, origin)
        return None

    def _parser_call(self, node: ast.Call, handle: ParserHandle, name: str) -> Val:
        origin = self.origin(node)
        arguments = call_arguments(self, node)
        model = handle.model
        if name in ("add_argument", "set_defaults"):
            positional = tuple(_argument_value(self, value) for value in arguments.positional)
            keywords = {
                key: _argument_value(self, value) for key, value in arguments.keywords.items()
            }
            model.calls.append(ParserCall(name, handle.group, positional, keywords))
            return ScalarNode(None, origin)
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            group = model.new_group()
            keywords = _plain_keywords(arguments.keywords)
            model.calls.append(ParserCall(name, handle.group, (), keywords, creates=group))
            return Opaque("object", "ArgumentGroup", origin, py=ParserHandle(model, group))
        if name in ("parse_args", "parse_known_args"):
            return self._parse(node, model, arguments, known_only=name == "parse_known_args")
        if name in ("print_help", "print_usage", "format_help", "format_usage"):
            raise UnknowableError("the parser's help text")
        model.unsupported = f"`parser.{name}()` is not modelled"
        raise UnknowableError(model.unsupported)

    def _parse(
        self, node: ast.Call, model: ParserModel, arguments: Arguments, *, known_only: bool
    ) -> Val:
        origin = self.origin(node)
        words: Sequence[str] = self.launch.arguments
        unresolved = self.launch.unresolved
        local_rank = self.launch.passes_local_rank
        if arguments.positional or "args" in arguments.keywords:
            given = arguments.positional[0] if arguments.positional else arguments.keywords["args"]
            plain = to_py(given)
            if plain is not None:
                if not isinstance(plain, list | tuple):
                    raise UnknowableError("parse_args() of something that is not a list")
                words, unresolved, local_rank = [str(word) for word in plain], frozenset(), False
        try:
            parsed = parse(
                model, words, unresolved=unresolved, known_only=known_only, local_rank=local_rank
            )
        except ParseFailure as failure:
            raise PathEnd(
                f"argparse rejects the launch's arguments: {failure}", self.source.span(node)
            ) from None
        except ParseExit:
            raise PathEnd("argparse exits (--help or --version)", self.source.span(node)) from None
        except ScriptCrash as crash:
            raise DefiniteError(str(crash)) from None
        namespace = Opaque(
            "object",
            "Namespace",
            origin,
            py=NamespaceHandle(self._namespace_values(parsed, origin)),
        )
        if known_only:
            extras = VList([ScalarNode(word, origin) for word in parsed.extras], False, origin)
            return VList([namespace, extras], True, origin)
        return namespace

    def _namespace_values(self, parsed: Parsed, origin: Origin) -> dict[str, Val]:
        source = self.launch.source
        from_words = Origin(source, (source.path,)) if source is not None else origin
        values: dict[str, Val] = {}
        for dest, plain in parsed.values.items():
            where = from_words if dest in parsed.given else origin
            if dest in parsed.unknown:
                values[dest] = _with_unknown_words(plain, where, self.launch)
            elif dest in parsed.per_rank:
                values[dest] = UnknownNode("--local-rank", "differs per rank", where)
            else:
                values[dest] = from_py(plain, where)
        return values


# -- helpers ---------------------------------------------------------------------------------


def _entries(named: dict[str, Val]) -> dict[object, Val]:
    """Names and values as a dict's entries (keyword arguments, a namespace)."""
    return {name: value for name, value in named.items()}


def _file_origin(path: Path) -> Origin:
    return Origin(Span(path, 1, 1, 1, 1), (path,))


def _at(value: ScalarNode, origin: Origin) -> ScalarNode:
    """A value read through a name (`args.launcher`), placed where it is read: the script
    line that uses it is the one to point at (the launcher it came from, if any, follows)."""
    came_from = tuple(path for path in value.origin.chain[-1:] if path not in origin.chain)
    return ScalarNode(value.value, origin._replace(chain=(*origin.chain, *came_from)))


def _rebased(value: Val, origin: Origin) -> Val:
    """Options from the command line have no file of their own: they are where the script
    merges them (`cfg.merge_from_dict(args.cfg_options)`)."""
    if isinstance(value, ScalarNode):
        return ScalarNode(value.value, origin)
    if isinstance(value, VDict):
        return VDict(
            {k: _rebased(v, origin) for k, v in value.entries.items()}, origin, value.config_dict
        )
    if isinstance(value, VList):
        return VList([_rebased(item, origin) for item in value.items], value.is_tuple, origin)
    return value


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_none_value(value: Val) -> bool:
    if isinstance(value, ScalarNode):
        return value.value is None
    if isinstance(value, VDict | VList | DictNode | SequenceNode | Opaque):
        return False
    raise UnknowableError(value.reason if isinstance(value, UnknownNode) else "not known")


def _names_cuda(runner: ScriptRunner, node: ast.expr) -> bool:
    try:
        value = runner.evaluate(node)
    except UnknowableError:
        return False
    return _value_names_cuda(value)


def _value_names_cuda(value: Val) -> bool:
    return (
        isinstance(value, ScalarNode)
        and isinstance(value.value, str)
        and value.value.startswith("cuda")
    )


def _plain_keywords(keywords: dict[str, Val]) -> dict[str, object]:
    plain: dict[str, object] = {}
    for key, value in keywords.items():
        try:
            plain[key] = to_py(value)
        except UnknowableError:
            continue
    return plain


def _argument_value(runner: ScriptRunner, value: Val) -> object:
    """A value given to add_argument, as argparse needs it (types and actions by name)."""
    if isinstance(value, Opaque):
        if value.kind == "builtin" and value.name in ("int", "float", "str"):
            return value.name
        if value.name in DICT_ACTIONS:
            return "DictAction"
        return Unknown(value.name)
    try:
        return to_py(value)
    except UnknowableError:
        source = value.source if isinstance(value, UnknownNode) else "?"
        return Unknown(source)


def _runner_keywords(arguments: Arguments, origin: Origin) -> VDict:
    """`Runner(model=..., launcher=..., ...)`: the keywords are the config the Runner reads."""
    entries = _entries(arguments.keywords)
    config = entries.pop("cfg", None)
    merged: dict[object, Val] = {}
    if isinstance(config, DictNode):
        config = thaw(config)
    if isinstance(config, VDict):
        merged.update(config.entries)
    merged.update(entries)
    return VDict(merged, origin, config_dict=True)


def _bind_arguments(
    function: ScriptFunction, arguments: Arguments, origin: Origin
) -> dict[str, Val]:
    spec = function.node.args
    names = [argument.arg for argument in [*spec.posonlyargs, *spec.args]]
    scope: dict[str, Val] = {}
    positional = list(arguments.positional)
    for name, value in zip(names, positional, strict=False):
        scope[name] = value
    extra = positional[len(names) :]
    if spec.vararg is not None:
        scope[spec.vararg.arg] = VList(extra, True, origin)
    elif extra:
        raise DefiniteError(
            f"TypeError: {function.node.name}() takes {len(names)} positional arguments"
        )
    keywords = dict(arguments.keywords)
    for name in [*names, *(argument.arg for argument in spec.kwonlyargs)]:
        if name in keywords:
            if name in scope:
                raise DefiniteError(
                    f"TypeError: {function.node.name}() got multiple values for '{name}'"
                )
            scope[name] = keywords.pop(name)
    if spec.kwarg is not None:
        scope[spec.kwarg.arg] = VDict(_entries(keywords), origin)
    elif keywords:
        raise DefiniteError(f"TypeError: {function.node.name}() got an unexpected keyword argument")
    defaults = function.defaults
    for name, default in zip(names[len(names) - len(defaults) :], defaults, strict=True):
        scope.setdefault(name, default)
    for name, default in function.kw_defaults.items():
        scope.setdefault(name, default)
    missing = [name for name in [*names, *(a.arg for a in spec.kwonlyargs)] if name not in scope]
    if missing:
        raise DefiniteError(f"TypeError: {function.node.name}() missing argument '{missing[0]}'")
    return scope


def _environment(launch: Launch, origin: Origin) -> EnvironHandle:
    source = launch.source
    where = Origin(source, (source.path,)) if source is not None else origin
    known: dict[str, Val] = {
        key: ScalarNode(value, where) for key, value in launch.environment.items()
    }
    world = launch.world_size
    if launch.rank_variables:
        if world is not None and "WORLD_SIZE" in launch.rank_variables:
            known["WORLD_SIZE"] = ScalarNode(str(world), where)
        if launch.nproc_per_node is not None and "LOCAL_WORLD_SIZE" in launch.rank_variables:
            known["LOCAL_WORLD_SIZE"] = ScalarNode(str(launch.nproc_per_node), where)
    per_rank = frozenset(launch.rank_variables) - frozenset(known)
    return EnvironHandle(known, per_rank)


def _environ_has(environ: EnvironHandle, key: object) -> bool:
    if key in environ.removed:
        return False
    if key in environ.known or key in environ.per_rank:
        return True
    raise UnknowableError(f"whether `{key}` is set in the environment the job starts in")


def _environ_get(environ: EnvironHandle, key: object, default: Val | None, origin: Origin) -> Val:
    if key in environ.known and key not in environ.removed:
        return environ.known[str(key)]
    if key in environ.per_rank:
        return UnknownNode(f"${key}", "set per rank by the launcher", origin)
    if key in environ.removed:
        if default is None:
            raise DefiniteError(f"KeyError: {key!r}")
        return default
    raise UnknowableError(f"`{key}` from the environment the job starts in")


def _environ_method(environ: EnvironHandle, name: str, arguments: Arguments, origin: Origin) -> Val:
    values = arguments.positional
    if name == "get":
        default = values[1] if len(values) > 1 else ScalarNode(None, origin)
        return _environ_get(environ, to_py(values[0]), default, origin)
    if name == "setdefault":
        key = to_py(values[0])
        if not isinstance(key, str):
            raise DefiniteError("TypeError: str expected")
        if key in environ.known or key in environ.per_rank:
            return _environ_get(environ, key, None, origin)
        try:
            return _environ_get(environ, key, None, origin)
        except UnknowableError:
            pass
        environ.known[key] = values[1]
        return values[1]
    if name == "pop":
        key = to_py(values[0])
        environ.removed.add(str(key))
        return values[1] if len(values) > 1 else UnknownNode(str(key), "the environment", origin)
    if name == "update":
        source = values[0] if values else VDict(_entries(arguments.keywords), origin)
        if isinstance(source, DictNode):
            source = thaw(source)
        if isinstance(source, VDict):
            for key, value in source.entries.items():
                environ.known[str(key)] = value
            return ScalarNode(None, origin)
    raise UnknowableError(f"os.environ.{name}()")


def _with_unknown_words(plain: object, origin: Origin, launch: Launch) -> Val:
    """A parsed value holding a word the launcher could not resolve: unknown where it is."""
    from cfglint.launch.arguments import holds_placeholder

    if isinstance(plain, dict):
        return VDict(
            {key: _with_unknown_words(item, origin, launch) for key, item in plain.items()}, origin
        )
    if isinstance(plain, list | tuple):
        return VList(
            [_with_unknown_words(item, origin, launch) for item in plain],
            isinstance(plain, tuple),
            origin,
        )
    if holds_placeholder(plain):
        return UnknownNode(
            str(plain), "a word the launcher leaves to its caller or its environment", origin
        )
    return from_py(plain, origin)


def _may_jump(node: ast.stmt) -> bool:
    from cfglint.loader.statements import _may_jump as loader_may_jump

    return loader_may_jump(node)


Runnable = Callable[[], None]
