"""``.yaml``/``.yml``/``.json`` configs, read the way MMEngine reads them.

MMEngine substitutes placeholders in the file's text, parses it (PyYAML's full loader, or
``json.load``), and once the bases are loaded replaces each ``{{_base_.x}}`` placeholder string
that ended up as a dict value or list item with the base's value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from cfglint.codes import MMENGINE_REFUSES, NOT_A_CONFIG, UNREADABLE_CONFIG
from cfglint.loader.problems import LoadError, fail
from cfglint.loader.spans import DataSpans
from cfglint.loader.textsub import FilePlaceholders, substitute_file_text
from cfglint.loader.values import RANDOM_STRING, BaseVar, base_var_value
from cfglint.reprs import display_repr
from cfglint.types import ConfigNode, DictNode, ScalarNode, SequenceNode, UnknownNode

RANDOM_KEY = (
    "a `{{_base_.x}}` used as a key: MMEngine names the key with a random string "
    "(`_x_` and six random hex digits), so neither the key nor its value can be looked up"
)


class DataFile:
    """A data file's own keys, and the placeholder strings its ``{{_base_.x}}`` became."""

    __slots__ = ("base_tokens", "root")

    def __init__(self, root: DictNode, base_tokens: dict[str, str]) -> None:
        self.root = root
        self.base_tokens = base_tokens


def load_data_file(
    path: Path, text: str, placeholders: FilePlaceholders, is_leaf: bool = True
) -> DataFile:
    substituted = substitute_file_text(path, text, placeholders)
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
            raise fail(NOT_A_CONFIG, f"not a config ({kind}): skipped", path)
        what = "is empty" if root is None else "is not a mapping of config keys"
        raise fail(
            UNREADABLE_CONFIG, f"the file {what} (MMEngine needs a dict at the top level)", path
        )
    for key, value in root.entries.items():
        if not isinstance(key, str):
            raise LoadError(
                MMENGINE_REFUSES,
                f"top-level key {display_repr(key)} is not a string: MMEngine fails on it",
                value.origin.span,
            )
    return DataFile(root, substituted.base_tokens)


def substitute_base_vars(
    own: Mapping[object, ConfigNode], tokens: dict[str, str], base: Mapping[object, ConfigNode]
) -> dict[object, ConfigNode]:
    """MMEngine's ``_substitute_base_vars`` over the file's keys (``base``: the merged bases).

    MMEngine substitutes values only: a top-level key written as ``{{_base_.x}}`` stays the
    random string, a key of the config whose name cfglint cannot know. It is kept under the
    placeholder's text, its value unknown.
    """
    replacer = _Replacer(tokens, base)
    substituted: dict[object, ConfigNode] = {}
    for key, value in own.items():
        if isinstance(key, str) and replacer.has_token(key):
            readable = replacer.readable(key)
            substituted[readable] = UnknownNode(readable, RANDOM_KEY, value.origin)
        else:
            substituted[key] = replacer.node(value)
    return substituted


class _Replacer:
    def __init__(self, tokens: dict[str, str], base: Mapping[object, ConfigNode]) -> None:
        self.tokens = tokens
        self.base = base
        self.done: dict[int, ConfigNode] = {}  # YAML aliases share nodes: each is done once
        # One search for all tokens (longest first: one may start with another).
        alternatives = "|".join(map(re.escape, sorted(tokens, key=len, reverse=True)))
        self._any_token = re.compile(f'"({alternatives})"|({alternatives})')

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
                variable = BaseVar(dotted, f"{{{{_base_.{dotted}}}}}", node.origin)
                return base_var_value(self.base, variable)
            if self.has_token(node.value):
                return UnknownNode(self.readable(node.value), RANDOM_STRING, node.origin)
        elif isinstance(node, DictNode):
            for key in node.entries:
                if isinstance(key, str) and self.has_token(key):
                    reason = "a `{{_base_.x}}` placeholder used as a key is a random string"
                    return UnknownNode(self.readable(key), reason, node.origin)
            return DictNode({k: self.node(v) for k, v in node.entries.items()}, node.origin)
        elif isinstance(node, SequenceNode):
            items = tuple(self.node(item) for item in node.items)
            return SequenceNode(items, node.is_tuple, node.origin)
        return node

    def has_token(self, text: str) -> bool:
        return self._any_token.search(text) is not None

    def readable(self, text: str) -> str:
        """The text with each placeholder string (and its quotes) back as ``{{_base_.x}}``."""

        def placeholder(match: re.Match[str]) -> str:
            return f"{{{{_base_.{self.tokens[match.group(1) or match.group(2)]}}}}}"

        return self._any_token.sub(placeholder, text)
