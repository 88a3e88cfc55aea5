"""The calls an entry script makes, interpreted: what they return, and what they record.

`Config.fromfile` (through the Loader), `ConfigDict(...)`, `cfg.merge_from_dict`, the Runner in
its four forms, argparse (parsers, groups, `parse_args` on the launch's words), `os.environ`,
`init_dist`, `init_process_group`, `torch.cuda`, `torch.device`, DDP wrappers, `hasattr` and
`getattr`; anything else goes to the config loader's call evaluation (builtins, dict and list
methods, `copy.deepcopy`), and a call into another module it does not evaluate is unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from cfglint.launch import environ
from cfglint.launch.arguments import (
    Parsed,
    ParseExit,
    ParseFailure,
    ParserCall,
    ParserModel,
    ScriptCrash,
    Unknown,
    holds_placeholder,
    parse,
)
from cfglint.launch.environ import EnvironHandle
from cfglint.launch.functions import ScriptFunction, entries
from cfglint.launch.functions import entries as functions_entries
from cfglint.launch.interpreter import ConfigFailed, PathEnd, ScriptStatements
from cfglint.launch.known_names import (
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
    RUNNER_CLASSES,
    is_runner_from_cfg,
    is_runners_build,
)
from cfglint.launch.merge_options import merge_from_dict
from cfglint.launch.script_objects import (
    NamespaceHandle,
    ParserHandle,
    RunnerHandle,
    WrapperHandle,
)
from cfglint.loader.builtins_table import BUILTIN_NAMES
from cfglint.loader.calls import Arguments, call_arguments, dispatch_call
from cfglint.loader.values import (
    DefiniteError,
    Opaque,
    UnknowableError,
    Val,
    VDict,
    VList,
    copy_data,
    freeze,
    from_py,
    thaw,
    to_py,
)
from cfglint.types import (
    ConfigNode,
    DictNode,
    Launch,
    Origin,
    ResolvedConfig,
    ScalarNode,
    UnknownNode,
)


class ScriptRunner(ScriptStatements):
    """Runs one path of an entry script: its statements, and the calls described above."""

    handlers: ClassVar[dict[type[ast.expr], Callable[..., Val]]] = {}

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
                return VDict(entries(value.py.values), origin)
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
            return environ.get(handle, to_py(arguments.positional[0]), default, origin)
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
            return environ.method(owner.py, name, arguments, origin)
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


def _names_cuda(runner: ScriptStatements, node: ast.expr) -> bool:
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


def _argument_value(runner: ScriptStatements, value: Val) -> object:
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
    entries = functions_entries(arguments.keywords)
    config = entries.pop("cfg", None)
    merged: dict[object, Val] = {}
    if isinstance(config, DictNode):
        config = thaw(config)
    if isinstance(config, VDict):
        merged.update(config.entries)
    merged.update(entries)
    return VDict(merged, origin, config_dict=True)


def _with_unknown_words(plain: object, origin: Origin, launch: Launch) -> Val:
    """A parsed value holding a word the launcher could not resolve: unknown where it is."""
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
