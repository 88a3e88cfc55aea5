"""Mutable values used while evaluating one config file, and their conversion to the frozen tree.

A file's own code may mutate its data (``model.update(...)``, ``pipeline.append(...)``), and
Python aliasing must hold (``cfg = _base_.model; cfg.depth = 101`` changes ``_base_.model``), so
evaluation works on mutable :class:`VDict`/:class:`VList`. Frozen nodes from ``types.py`` (the
memoised results of base files) are thawed one level at a time, only where code reaches into them.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from cfglint.codes import MMENGINE_REFUSES
from cfglint.loader.limits import MAX_FROZEN_CONTAINERS, TOO_LARGE
from cfglint.loader.problems import LoadError
from cfglint.types import (
    ConfigNode,
    DictNode,
    LazyImport,
    Origin,
    ScalarNode,
    SequenceNode,
    Span,
    UnknownNode,
)


class VDict:
    """A dict being built. ``config_dict`` marks MMEngine ``ConfigDict`` semantics (from bases)."""

    __slots__ = ("config_dict", "entries", "origin", "poison")

    def __init__(self, entries: dict[object, Val], origin: Origin, config_dict: bool = False):
        self.entries = entries
        self.origin = origin
        self.config_dict = config_dict
        # Set when code we cannot evaluate changed this dict: the whole dict becomes unknown.
        self.poison: UnknownNode | None = None

    def child(self, key: object) -> Val:
        value = self.entries[key]
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
            self.entries[key] = value
        return value


class VList:
    __slots__ = ("is_tuple", "items", "origin", "poison")

    def __init__(self, items: list[Val], is_tuple: bool, origin: Origin):
        self.items = items
        self.is_tuple = is_tuple
        self.origin = origin
        self.poison: UnknownNode | None = None

    def child(self, index: int) -> Val:
        value = self.items[index]
        if isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
            self.items[index] = value
        return value


@dataclass(frozen=True, slots=True)
class BaseVar:
    """A bare ``{{_base_.x}}`` while the file runs.

    MMEngine replaces it with a random string before running the file, and puts the base value
    (the very object ``_base_.x`` is once the file has run) in its place afterwards, wherever the
    string ended up in the file's variables (dict values, list and tuple items). Anything done
    with it in between operates on the random string.
    """

    dotted: str
    source: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Opaque:
    """A value that is not config data: a module, a function, a builtin, a range object.

    ``name`` is the qualified name for modules, imported names and builtins (``os.path``,
    ``copy.deepcopy``, ``len``); ``py`` holds a plain Python object when one is known.
    """

    # "module", "import", "builtin", "function", "class", "method", "object"; "lazy": a lazy
    # import (MMEngine's LazyObject), its LazyImport in ``py``
    kind: str
    name: str
    origin: Origin
    py: object = None  # a plain object; for a function or class of the file, its ast node
    bound: object = None  # the receiver of a method


Val = ScalarNode | UnknownNode | DictNode | SequenceNode | VDict | VList | Opaque | BaseVar


def lazy_import(value: Val) -> LazyImport | None:
    """The lazy import (MMEngine's LazyObject or LazyAttr) a value is, if it is one."""
    if isinstance(value, Opaque | ScalarNode):
        found = value.py if isinstance(value, Opaque) else value.value
        if isinstance(found, LazyImport):
            return found
    return None


def thaw(node: DictNode | SequenceNode) -> VDict | VList:
    """One level of a frozen node as a mutable value (children stay frozen until reached)."""
    if isinstance(node, DictNode):
        return VDict(dict(node.entries), node.origin, config_dict=True)
    return VList(list(node.items), node.is_tuple, node.origin)


# Values that `freeze` returns as they are: skipping the call for them (scalars are most of a
# config, and a file's untouched base entries are frozen nodes) halves the cost of freezing.
_FROZEN_TYPES = (ScalarNode, DictNode, SequenceNode, UnknownNode)


SubstituteBaseVar = Callable[[BaseVar], ConfigNode]

RANDOM_STRING = (
    "a `{{_base_.x}}` placeholder that MMEngine leaves as a random string here "
    "(it substitutes only dict values and list or tuple items of the file's variables)"
)


def _leave_random(value: BaseVar) -> ConfigNode:
    return UnknownNode(value.source, RANDOM_STRING, value.origin)


class _TooLarge(Exception):
    pass


def freeze(value: Val, substitute: SubstituteBaseVar = _leave_random) -> ConfigNode:
    """The frozen tree of a value; ``substitute`` gives what a ``{{_base_.x}}`` becomes.

    Containers the code shares (``x = [x, x]`` in a loop) are copied where they appear, so the
    tree is bounded: past ``MAX_FROZEN_CONTAINERS`` the value is unknown, too large.
    """
    if isinstance(value, _FROZEN_TYPES):
        return value
    try:
        return _Freezer(substitute).freeze(value)
    except _TooLarge:
        return UnknownNode("...", TOO_LARGE, value.origin)


class _Freezer:
    __slots__ = ("budget", "substitute")

    def __init__(self, substitute: SubstituteBaseVar) -> None:
        self.substitute = substitute
        self.budget = MAX_FROZEN_CONTAINERS

    def freeze(self, value: Val) -> ConfigNode:
        if isinstance(value, VDict):
            if value.poison is not None:
                return value.poison
            self.budget -= 1  # inlined: this runs for every dict of every config
            if self.budget < 0:
                raise _TooLarge
            return DictNode(
                {
                    k: v if isinstance(v, _FROZEN_TYPES) else self.freeze(v)
                    for k, v in value.entries.items()
                },
                value.origin,
            )
        if isinstance(value, VList):
            if value.poison is not None:
                return value.poison
            self.budget -= 1
            if self.budget < 0:
                raise _TooLarge
            items = tuple(
                v if isinstance(v, _FROZEN_TYPES) else self.freeze(v) for v in value.items
            )
            return SequenceNode(items, value.is_tuple, value.origin)
        if isinstance(value, Opaque):
            if isinstance(value.py, LazyImport):
                return ScalarNode(value.py, value.origin)
            return UnknownNode(value.name, f"not config data ({value.kind})", value.origin)
        if isinstance(value, BaseVar):
            return self.substitute(value)
        return value


def base_var_value(
    base: VDict | Mapping[object, ConfigNode], variable: BaseVar, when: str = ""
) -> ConfigNode:
    """What MMEngine puts in place of a ``{{_base_.x}}``: ``base['a']['b']...``, frozen.

    ``base`` holds the merged bases (as a ``.py`` file's code left them); ``when`` tells the
    moment in a CL905 for a key they lack (MMEngine fails on it).
    """
    # (The root's origin is never seen: the dotted key has at least one part.)
    value: Val = base if isinstance(base, VDict) else DictNode(base, variable.origin)
    for part in variable.dotted.split("."):
        if isinstance(value, UnknownNode):  # the key is somewhere inside an unknown value
            return UnknownNode(value.source, value.reason, variable.origin)
        if isinstance(value, VDict | VList) and value.poison is not None:
            return UnknownNode(variable.source, value.poison.reason, variable.origin)
        if isinstance(value, VDict) and part in value.entries:
            value = value.child(part)
        elif isinstance(value, DictNode) and part in value.entries:
            value = value.entries[part]
        else:
            raise LoadError(
                MMENGINE_REFUSES,
                f"`{variable.source}`: the bases do not define `{part}`{when}",
                variable.origin.span,
            )
    return freeze(value)


def copy_unknown(unknown: UnknownNode) -> UnknownNode:
    """The same unknown as a value of its own, for each name that code cfglint did not follow
    may have bound."""
    return UnknownNode(unknown.source, unknown.reason, unknown.origin)


def poison_deep(value: Val, unknown: UnknownNode) -> int:
    """Mark every dict and list reachable from ``value`` as changed by code cfglint cannot follow.

    Returns the work done (containers and items looked at), for the evaluator's work budget.
    A container already poisoned is not entered: only this function sets poison, and it sets
    it all the way down, so everything below one is poisoned too (copies keep the mark, and a
    poisoned container refuses reads and writes). Each container is thus entered once, however
    often the code hands it to calls cfglint does not follow and however it is shared.
    Frozen nodes inside need nothing: they can only be reached (and changed) through the
    containers above them, which now refuse to be read.
    """
    work = 0
    pending = [value]
    while pending:
        current = pending.pop()
        work += 1
        if not isinstance(current, VDict | VList) or current.poison is not None:
            continue
        current.poison = unknown
        pending.extend(current.entries.values() if isinstance(current, VDict) else current.items)
    return work


class UnknowableError(Exception):
    """Evaluation reached something cfglint does not evaluate statically."""

    def __init__(self, reason: str, node: UnknownNode | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


class DefiniteError(UnknowableError):
    """Every input is known and the operation fails: MMEngine would stop on it too.

    ``exception`` is the builtin exception Python raises there, when cfglint knows it: by
    default the one the reason starts with, as Python prints errors (``KeyError: 'a'``).
    ``span`` is where the statement that raised it is (set by the statement runner).
    """

    def __init__(self, reason: str, exception: type[BaseException] | None = None) -> None:
        super().__init__(reason)
        if exception is None:
            named = getattr(builtins, reason.partition(":")[0], None)
            if isinstance(named, type) and issubclass(named, BaseException):
                exception = named
        self.exception = exception
        self.span: Span | None = None


def to_py(value: Val) -> object:
    """The plain Python value, for pure computations. Raises UnknowableError on unknowns."""
    if isinstance(value, ScalarNode):
        if type(value.value) is LazyImport:
            raise UnknowableError(f"`{value.value.path}`: a lazy import (MMEngine's LazyObject)")
        return value.value
    if isinstance(value, VDict):
        if value.poison is not None:
            raise UnknowableError(value.poison.reason, value.poison)
        return {key: to_py(item) for key, item in value.entries.items()}
    if isinstance(value, VList):
        if value.poison is not None:
            raise UnknowableError(value.poison.reason, value.poison)
        items = [to_py(item) for item in value.items]
        return tuple(items) if value.is_tuple else items
    if isinstance(value, DictNode):
        return {key: to_py(item) for key, item in value.entries.items()}
    if isinstance(value, SequenceNode):
        seq = [to_py(item) for item in value.items]
        return tuple(seq) if value.is_tuple else seq
    if isinstance(value, UnknownNode):
        raise UnknowableError(value.reason, value)
    if isinstance(value, BaseVar):
        raise UnknowableError(
            f"`{value.source}` is a random placeholder string while the file runs (MMEngine)"
        )
    if value.kind == "object":
        return value.py
    raise UnknowableError(f"`{value.name}` is not config data")


_SCALARS = (type(None), bool, int, float, str, bytes, complex)


def from_py(obj: object, origin: Origin) -> Val:
    """Wrap a computed Python value; every node gets the origin of the computing expression."""
    if isinstance(obj, _SCALARS):
        return ScalarNode(obj, origin)
    if isinstance(obj, dict):
        return VDict({key: from_py(item, origin) for key, item in obj.items()}, origin)
    if isinstance(obj, list | tuple):
        return VList([from_py(item, origin) for item in obj], isinstance(obj, tuple), origin)
    return Opaque("object", type(obj).__name__, origin, py=obj)


CopyKind = Literal["deepcopy", "to_dict", "config_dict"]


def copy_data(value: Val, kind: CopyKind) -> Val:
    """A copy of config data, made the way Python or MMEngine makes it:

    - ``deepcopy``: ``copy.deepcopy``; containers copied once each (what the value shares, the
      copy shares too), each dict keeping its kind; frozen nodes shared (they are immutable).
    - ``to_dict``: ``ConfigDict.to_dict()``; every dict, frozen ones too, a plain dict.
    - ``config_dict``: ``ConfigDict._hook``, for a value stored into a ConfigDict: a plain
      dict becomes a ConfigDict (copied), lists and tuples are rebuilt around such dicts, and
      a ConfigDict is kept as it is (the same object).

    The copy of a poisoned container is poisoned (and empty: nothing can read it).
    """
    return _Copier(kind).copy(value)


class _Copier:
    __slots__ = ("kind", "memo")

    def __init__(self, kind: CopyKind) -> None:
        self.kind = kind
        self.memo: dict[int, Val] | None = {} if kind == "deepcopy" else None

    def copy(self, value: Val) -> Val:
        if self.kind == "to_dict" and isinstance(value, DictNode | SequenceNode):
            value = thaw(value)
        if not isinstance(value, VDict | VList):
            return value
        if self.kind == "config_dict" and isinstance(value, VDict) and value.config_dict:
            return value
        if self.memo is not None and id(value) in self.memo:
            return self.memo[id(value)]
        poisoned = value.poison is not None
        copied: VDict | VList
        if isinstance(value, VDict):
            config_dict = value.config_dict if self.kind == "deepcopy" else self.kind != "to_dict"
            copied = VDict({}, value.origin, config_dict)
            if self.memo is not None:
                self.memo[id(value)] = copied
            if not poisoned and config_dict and self.kind == "deepcopy":
                # `ConfigDict.__deepcopy__` stores each copied value through its `_hook`:
                # the lists (and plain dicts) under it are rebuilt, and shared no more.
                hook = _Copier("config_dict").copy
                copied.entries = {key: hook(self.copy(item)) for key, item in value.entries.items()}
            elif not poisoned:
                copied.entries = {key: self.copy(item) for key, item in value.entries.items()}
        else:
            copied = VList([], value.is_tuple, value.origin)
            if self.memo is not None:
                self.memo[id(value)] = copied
            if not poisoned:
                copied.items = [self.copy(item) for item in value.items]
        copied.poison = value.poison
        return copied
