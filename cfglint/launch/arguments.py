"""The entry script's command-line parser, rebuilt from what the script tells argparse.

The script is never run: the interpreter records each `ArgumentParser(...)`, `add_argument(...)`,
`add_argument_group(...)`, `add_mutually_exclusive_group(...)` and `set_defaults(...)` call with
the literal values it was given, and this module replays them on a real `argparse` parser, then
parses the launch's arguments with it. Python's own argparse decides what every option means
(prefix matching, `nargs='?'` with `const`, `store_true`, `choices`, the error a bad word gives),
so the script sees exactly what it would see. `action=DictAction` (MMEngine's `--cfg-options`)
is read as MMEngine reads it (dict_action.py).

A word the launcher could not resolve (a shell variable set elsewhere) goes in as a placeholder;
whatever it lands in is unknown afterwards, nothing else is.
"""

from __future__ import annotations

import argparse
import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cfglint.launch.dict_action import OptionValueError, parse_options

# Keyword arguments of add_argument that change what a word means. Others (help, metavar) are
# display only and not replayed, so an unknown help text never makes a parser unknown.
MEANINGFUL = frozenset(
    {"action", "nargs", "const", "default", "type", "choices", "required", "dest"}
)
_PLACEHOLDER = "\x00cfglint-word-{}\x00"
_UNSET = object()  # a default no word can produce: tells which destinations the words set
TYPES: Mapping[str, Callable[[str], object]] = {"int": int, "float": float, "str": str}
LOCAL_RANK_FLAGS = ("--local-rank", "--local_rank")


class Unknown:
    """Stands for a keyword value the script computes in a way cfglint does not evaluate."""

    def __init__(self, source: str) -> None:
        self.source = source

    def __repr__(self) -> str:
        return self.source


@dataclass
class ParserCall:
    """One call the script made on a parser or one of its groups."""

    method: str  # "add_argument", "add_argument_group", "add_mutually_exclusive_group", ...
    group: int  # the parser (0) or the group it was made on
    positional: tuple[object, ...]
    keywords: dict[str, object]
    creates: int | None = None  # the group a group-making call returns


@dataclass
class ParserModel:
    """An argparse parser as the script builds it."""

    settings: dict[str, object] = field(default_factory=dict)
    calls: list[ParserCall] = field(default_factory=list)
    groups: int = 0
    # Why the parser cannot be rebuilt (a call cfglint does not model), or None.
    unsupported: str | None = None

    def new_group(self) -> int:
        self.groups += 1
        return self.groups


class ParseFailure(Exception):
    """argparse would print a usage error and exit with status 2 (the job never starts)."""


class ParseExit(Exception):
    """argparse would exit by itself (`--help`, `--version`)."""


class ScriptCrash(Exception):
    """An action raised an exception argparse does not catch (MMEngine's DictAction on a
    word that is not KEY=VALUE): the script stops with it."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise ParseFailure(message)

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise ParseExit(status)

    def _print_message(self, message: str, file: Any = None) -> None:
        return


class _DictOptions(argparse.Action):
    """MMEngine's DictAction: each KEY=VALUE word adds to one dict."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        existing = getattr(namespace, self.dest, None)
        options = copy.copy({} if existing is _UNSET else existing or {})
        if values is not None:
            try:
                # A bare string (no nargs) is iterated character by character, as MMEngine does.
                options.update(parse_options(list(values)))
            except OptionValueError as error:
                raise ScriptCrash(str(error)) from None
        setattr(namespace, self.dest, options)


@dataclass(frozen=True, slots=True)
class Parsed:
    """What `parse_args` returns: each destination's value, and which came from the words."""

    values: dict[str, object]
    given: frozenset[str]  # destinations set by the launch's words (not defaults)
    unknown: frozenset[str]  # destinations holding a word the launcher could not resolve
    per_rank: frozenset[str]  # destinations holding `--local-rank`, which differs per rank
    extras: tuple[str, ...] = ()  # what `parse_known_args` leaves over


def _keywords(keywords: Mapping[str, object]) -> dict[str, object]:
    replayed: dict[str, object] = {}
    for name, value in keywords.items():
        if name not in MEANINGFUL:
            continue
        if name == "type" and isinstance(value, str):
            value = TYPES.get(value, str)
        elif name == "action" and value == "DictAction":
            value = _DictOptions
        if isinstance(value, Unknown):
            raise ParseFailure(f"`{name}={value.source}` is not known statically")
        replayed[name] = value
    return replayed


def build_parser(model: ParserModel) -> argparse.ArgumentParser:
    settings = {
        key: value
        for key, value in model.settings.items()
        if key in ("prefix_chars", "allow_abbrev", "add_help", "argument_default")
    }
    parser = _Parser(prog="entry", exit_on_error=False, **settings)  # type: ignore[arg-type]
    holders: dict[int, Any] = {0: parser}
    for call in model.calls:
        holder = holders[call.group]
        keywords = _keywords(call.keywords)
        method = getattr(holder, call.method)
        created = method(*call.positional, **keywords)
        if call.creates is not None:
            holders[call.creates] = created
    return parser


# The shell expansions in a word the launcher left unresolved (`work_dir=$WORK`): only those
# parts are unknown, the rest of the word is what the script sees.
_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?]")


def _placeholders(words: Sequence[str], unresolved: frozenset[int]) -> list[str]:
    placed: list[str] = []
    for index, word in enumerate(words):
        if index in unresolved:
            marker = _PLACEHOLDER.format(index)
            replaced = _EXPANSION.sub(marker, word)
            word = replaced if replaced != word else marker
        placed.append(word)
    return placed


def holds_placeholder(value: object) -> bool:
    if isinstance(value, str):
        return "\x00cfglint-word-" in value
    if isinstance(value, list | tuple):
        return any(holds_placeholder(item) for item in value)
    if isinstance(value, dict):
        return any(holds_placeholder(item) for item in value.values())
    return False


def parse(
    model: ParserModel,
    words: Sequence[str],
    *,
    unresolved: frozenset[int] = frozenset(),
    known_only: bool = False,
    local_rank: bool = False,
) -> Parsed:
    """Parse the launch's words as the script's parser would.

    `local_rank`: the launcher appends `--local-rank=N` (`torch.distributed.launch`); its
    value differs per rank. Raises ParseFailure, ParseExit or ScriptCrash as the script would
    stop.
    """
    if model.unsupported is not None:
        raise ParseFailure(model.unsupported)
    try:
        parser = build_parser(model)
    except (TypeError, ValueError, argparse.ArgumentError) as error:
        raise ParseFailure(f"the script's parser cannot be rebuilt: {error}") from None
    placed = _placeholders(words, unresolved)
    if local_rank:
        placed.append("--local-rank=0")
    try:
        if known_only:
            namespace, extras = parser.parse_known_args(placed)
        else:
            namespace, extras = parser.parse_args(placed), []
    except argparse.ArgumentError as error:
        raise ParseFailure(str(error)) from None
    values = dict(vars(namespace))
    given = _given(parser, placed)
    unknown = frozenset(dest for dest, value in values.items() if holds_placeholder(value))
    per_rank = frozenset(
        action.dest
        for action in parser._actions
        if local_rank and any(flag in action.option_strings for flag in LOCAL_RANK_FLAGS)
    )
    return Parsed(values, given, unknown, per_rank, tuple(extras))


def _given(parser: argparse.ArgumentParser, words: Sequence[str]) -> frozenset[str]:
    """The destinations the words set: parsed again with every default cleared."""
    probe = copy.deepcopy(parser)
    for action in probe._actions:
        action.default = _UNSET
    probe.set_defaults(**dict.fromkeys(probe._defaults, _UNSET))
    try:
        namespace, _extras = probe.parse_known_args(list(words))
    except (ParseFailure, ParseExit, ScriptCrash, argparse.ArgumentError):
        return frozenset()
    return frozenset(dest for dest, value in vars(namespace).items() if value is not _UNSET)
