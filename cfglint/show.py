"""``cfglint show``: the resolved value of config keys and where each was set (a config blame)."""

from __future__ import annotations

import contextlib
import math
import reprlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from cfglint.paths import display_path
from cfglint.reprs import display_repr, is_printable_int
from cfglint.types import (
    ConfigNode,
    DictNode,
    Origin,
    ResolvedConfig,
    ScalarNode,
    SequenceNode,
    UnknownNode,
    follow_key,
    split_key,
    to_python,
    walk_nodes,
)

MAX_VALUE_WIDTH = 160
UNKNOWN_MARKER = "$unknown"  # a nested unknown in a JSON value: {"$unknown": "<source>"}


class InvalidKeyError(ValueError):
    """A ``--key`` that is not a dotted key."""


def parse_key(key: str) -> tuple[str, ...]:
    """The parts of a dotted key (list items by index: ``model.pipeline.0.root``)."""
    parts = split_key(key)
    if not parts or ".".join(parts) != key:  # an empty part: `a..b`, `.a`, `a.`
        raise InvalidKeyError(
            f"invalid key {key!r}: expected a dotted key like env_cfg.dist_cfg.backend"
        )
    return parts


@dataclass(frozen=True, slots=True)
class ShownKey:
    key: str
    node: ConfigNode | None  # None: the config does not have this key
    # Set when a part of the key leads into an unknown value: the key that is unknown.
    unknown_at: str | None = None


def lookup_key(root: DictNode, key: str) -> ShownKey:
    """The node at a dotted key; an unknown on the way makes the whole key unknown."""
    parts = parse_key(key)
    found = follow_key(root, parts)
    if found.node is None:
        return ShownKey(key, None)
    if found.depth < len(parts):
        return ShownKey(key, found.node, ".".join(parts[: found.depth]))
    return ShownKey(key, found.node)


def shown_keys(config: ResolvedConfig, keys: Sequence[str]) -> list[ShownKey]:
    if not keys:
        return [ShownKey(str(key), node) for key, node in config.root.entries.items()]
    return [lookup_key(config.root, key) for key in keys]


def unknowns_inside(node: ConfigNode, key: str) -> Iterator[tuple[str, UnknownNode]]:
    """Every unknown in a subtree, with its dotted key (list items by index)."""
    for inner_key, inner in walk_nodes(node, key):
        if isinstance(inner, UnknownNode):
            yield inner_key, inner


def env_dependent_inside(node: ConfigNode, key: str) -> Iterator[str]:
    """The keys in a subtree whose value came from a ``{{$ENV:default}}`` placeholder (not the
    keys inside one of them)."""
    marked: str | None = None  # the last key given: walk_nodes gives its subtree next
    for inner_key, inner in walk_nodes(node, key):
        if marked is not None and inner_key.startswith(f"{marked}."):
            continue
        if inner.origin.env_dependent:
            marked = inner_key
            yield inner_key


class _UnknownMarker:
    def __init__(self, node: UnknownNode) -> None:
        self.node = node

    def __repr__(self) -> str:
        return f"<unknown: {self.node.source}>"


def _displayable(node: ConfigNode) -> object:
    return to_python(node, on_unknown=_UnknownMarker)


_SHORT = reprlib.Repr()
_SHORT.maxstring = 80
_SHORT.maxother = 80
_SHORT.maxdict = 8
_SHORT.maxlist = 8
_SHORT.maxtuple = 8
_SHORT.maxlevel = 3


def short_repr(node: ConfigNode) -> str:
    value = _displayable(node)
    text = display_repr(value)  # `10**5000` is a value too, too long for repr
    if len(text) <= MAX_VALUE_WIDTH:
        return text
    with contextlib.suppress(ValueError):  # reprlib calls repr on each int
        text = _SHORT.repr(value)
    return text if len(text) <= MAX_VALUE_WIDTH else text[: MAX_VALUE_WIDTH - 3] + "..."


def format_text(config: ResolvedConfig, keys: Sequence[str], cwd: Path | None = None) -> str:
    lines: list[str] = []
    for shown in shown_keys(config, keys):
        node = shown.node
        if node is None:
            lines.append(f"{shown.key}: not set")
            continue
        if isinstance(node, UnknownNode):
            lines.append(f"{shown.key} = <unknown: {node.source}>")
            inside = f" (`{shown.unknown_at}` is unknown)" if shown.unknown_at else ""
            lines.append(f"    unknown: {node.reason}{inside}")
        else:
            lines.append(f"{shown.key} = {short_repr(node)}")
        lines.extend(_origin_lines(node.origin, cwd, config.overlay))
        nested = [key for key in env_dependent_inside(node, shown.key) if key != shown.key]
        if nested:
            lines.append(
                "    env-dependent: " + ", ".join(nested) + " (from {{$ENV:default}} "
                "placeholders, shown with their defaults)"
            )
    return "\n".join(lines) + "\n"


def _origin_lines(origin: Origin, cwd: Path | None, overlay: tuple[Path, ...] = ()) -> list[str]:
    where = f"{display_path(origin.path, cwd)}:{origin.span.line}"
    env = "  (from a {{$ENV:default}} placeholder: its default)" if origin.env_dependent else ""
    by = overridden_by(origin, overlay)
    if by is not None:
        env = f"  (overridden by the {by})"
    lines = [f"    set at {where}{env}"]
    if len(origin.chain) > 1:
        lines.append("    via    " + " -> ".join(display_path(path, cwd) for path in origin.chain))
    return lines


def overridden_by(origin: Origin, overlay: tuple[Path, ...]) -> str | None:
    """ "entry script" or "launcher" when a launch's file set the value over the config's."""
    if not overlay or origin.path not in overlay:
        return None
    return "entry script" if origin.path == overlay[0] else "launcher"


def _json_value(node: ConfigNode) -> object:
    if isinstance(node, ScalarNode):
        value = node.value
        if isinstance(value, float) and not math.isfinite(value):
            return repr(value)
        if isinstance(value, int) and not isinstance(value, bool) and not is_printable_int(value):
            return display_repr(value)  # json writes ints with repr, which refuses this one
        if value is None or isinstance(value, bool | int | float | str):
            return value
        return display_repr(value)
    if isinstance(node, UnknownNode):
        return {UNKNOWN_MARKER: node.source}
    if isinstance(node, SequenceNode):
        return [_json_value(item) for item in node.items]
    return {str(key): _json_value(value) for key, value in node.entries.items()}


def _json_origin(origin: Origin, cwd: Path | None) -> dict[str, object]:
    return {
        "path": display_path(origin.path, cwd),
        "line": origin.span.line,
        "column": origin.span.column,
    }


def to_json(
    config: ResolvedConfig, keys: Sequence[str], cwd: Path | None = None
) -> dict[str, object]:
    """key -> {value, origin, chain} (see docs/configs.md for the shape); None for a missing key."""
    shown: dict[str, object] = {}
    for entry in shown_keys(config, keys):
        node = entry.node
        if node is None:
            shown[entry.key] = None
            continue
        item: dict[str, object] = {}
        if isinstance(node, UnknownNode):
            item["unknown"] = True
            item["source"] = node.source
            item["reason"] = node.reason
            if entry.unknown_at:
                item["unknown_at"] = entry.unknown_at
        else:
            item["value"] = _json_value(node)
            inner = [
                {
                    "key": key,
                    "source": unknown.source,
                    "reason": unknown.reason,
                    "origin": _json_origin(unknown.origin, cwd),
                }
                for key, unknown in unknowns_inside(node, entry.key)
            ]
            if inner:
                item["unknowns"] = inner
        item["origin"] = _json_origin(node.origin, cwd)
        item["chain"] = [display_path(path, cwd) for path in node.origin.chain]
        by = overridden_by(node.origin, config.overlay)
        if by is not None:
            item["overridden_by"] = by
        env_keys = list(env_dependent_inside(node, entry.key))
        if env_keys:
            item["env_dependent"] = True
            nested = [key for key in env_keys if key != entry.key]
            if nested:
                item["env_dependent_keys"] = nested
        shown[entry.key] = item
    return shown
