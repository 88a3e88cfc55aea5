"""``.yaml``/``.yml``/``.json`` configs, read the way MMEngine reads them.

MMEngine substitutes placeholders in the file's text, parses it (PyYAML's full loader, or
``json.load``), and once the bases are loaded replaces each ``{{_base_.x}}`` placeholder string
that ended up as a dict value or list item with the base's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cfglint.loader.placeholders import check_environment, predefined_values
from cfglint.loader.problems import LoadError, fail
from cfglint.loader.spans import DataSpans
from cfglint.loader.textsub import PlaceholderError, substitute_file_text
from cfglint.loader.values import RANDOM_STRING
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode, UnknownNode


class DataFile:
    """A data file's own keys, and the placeholder strings its ``{{_base_.x}}`` became."""

    __slots__ = ("base_tokens", "root")

    def __init__(self, root: DictNode, base_tokens: dict[str, str]) -> None:
        self.root = root
        self.base_tokens = base_tokens


def load_data_file(
    path: Path, text: str, environ: Mapping[str, str], is_leaf: bool = True
) -> DataFile:
    check_environment(path, text, environ)
    try:
        substituted = substitute_file_text(text, predefined_values(path), environ)
    except PlaceholderError as error:
        raise fail("CL905", str(error), path) from None
    spans = DataSpans(path, text, substituted.mapped)
    # Imported here: most configs are .py, and PyYAML takes a while to import.
    root: ConfigNode | None
    if path.suffix == ".json":
        from cfglint.loader.jsonfile import load_json

        root = load_json(spans)
    else:
        from cfglint.loader.yamlfile import load_yaml

        root = load_yaml(spans)
    if not isinstance(root, DictNode):
        if is_leaf:
            # An empty file, a list or a scalar at the top is a data file (class names, a
            # split) that happens to sit among the configs, not a broken config: skipped
            # (CL907, a warning).
            kind = (
                "the file is empty"
                if root is None
                else f"the top level is a {'list' if isinstance(root, SequenceNode) else 'scalar'}"
            )
            raise fail("CL907", f"not a config ({kind}): skipped", path)
        what = "is empty" if root is None else "is not a mapping of config keys"
        raise fail("CL902", f"the file {what} (MMEngine needs a dict at the top level)", path)
    for key, value in root.entries.items():
        if not isinstance(key, str):
            raise LoadError(
                "CL905",
                f"top-level key {key!r} is not a string: MMEngine fails on it",
                value.origin.span,
            )
    return DataFile(root, substituted.base_tokens)


def substitute_base_vars(
    own: Mapping[object, ConfigNode], tokens: dict[str, str], base: Mapping[object, ConfigNode]
) -> dict[object, ConfigNode]:
    """MMEngine's ``_substitute_base_vars`` over the file's keys (``base``: the merged bases)."""
    replacer = _Replacer(tokens, base)
    return {key: replacer.node(value) for key, value in own.items()}


class _Replacer:
    def __init__(self, tokens: dict[str, str], base: Mapping[object, ConfigNode]) -> None:
        self.tokens = tokens
        self.base = base
        self.done: dict[int, ConfigNode] = {}  # YAML aliases share nodes: each is done once

    def node(self, node: ConfigNode) -> ConfigNode:
        done = self.done.get(id(node))
        if done is None:
            done = self._replace(node)
            self.done[id(node)] = done
        return done

    def _replace(self, node: ConfigNode) -> ConfigNode:
        if isinstance(node, ScalarNode) and isinstance(node.value, str):
            dotted = self.tokens.get(node.value)
            if dotted is not None:
                return self._base_value(dotted, node)
            if self._has_token(node.value):
                return UnknownNode(self._readable(node.value), RANDOM_STRING, node.origin)
        elif isinstance(node, DictNode):
            for key in node.entries:
                if isinstance(key, str) and self._has_token(key):
                    reason = "a `{{_base_.x}}` placeholder used as a key is a random string"
                    return UnknownNode(self._readable(key), reason, node.origin)
            return DictNode({k: self.node(v) for k, v in node.entries.items()}, node.origin)
        elif isinstance(node, SequenceNode):
            items = tuple(self.node(item) for item in node.items)
            return SequenceNode(items, node.is_tuple, node.origin)
        return node

    def _base_value(self, dotted: str, node: ScalarNode) -> ConfigNode:
        value: ConfigNode | None = None
        entries: Mapping[object, ConfigNode] | None = self.base
        for part in dotted.split("."):
            if entries is None or part not in entries:
                raise LoadError(
                    "CL905",
                    f"`{{{{_base_.{dotted}}}}}`: the bases do not define `{part}`",
                    node.origin.span,
                )
            value = entries[part]
            if isinstance(value, UnknownNode):
                return UnknownNode(value.source, value.reason, node.origin)
            entries = value.entries if isinstance(value, DictNode) else None
        assert value is not None
        return value

    def _has_token(self, text: str) -> bool:
        return any(token in text for token in self.tokens)

    def _readable(self, text: str) -> str:
        for token, dotted in self.tokens.items():
            text = text.replace(f'"{token}"', f"{{{{_base_.{dotted}}}}}")
            text = text.replace(token, f"{{{{_base_.{dotted}}}}}")
        return text
