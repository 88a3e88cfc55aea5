"""``.yaml``/``.yml`` configs: the values MMEngine's ``yaml.load`` gives, without constructing any.

MMEngine loads YAML with PyYAML's full loader (YAML 1.1: ``off`` is False, ``1e3`` a string,
``017`` is 15, merge keys work). cfglint lets PyYAML compose the document (nodes with their
positions and resolved tags), then builds the values itself from the standard scalar tags, so
no ``!!python/...`` tag ever constructs an object: those become unknown values, except
``!!python/tuple``, which is a plain tuple.
"""

from __future__ import annotations

import re

import yaml
from yaml.constructor import Constructor, ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from cfglint.codes import SYNTAX_ERROR
from cfglint.loader.limits import MAX_ELEMENTS, TOO_LARGE
from cfglint.loader.problems import LoadError
from cfglint.loader.spans import DataSpans
from cfglint.types import ConfigNode, DictNode, Origin, UnknownNode
from cfglint.types import ScalarNode as ScalarValue
from cfglint.types import SequenceNode as SequenceValue

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = frozenset(_TAG + name for name in ("null", "bool", "int", "float", "str", "binary"))
_PROPERTIES = re.compile(r"(?:(?:&[^\s,\[\]{}]+|![^\s,\[\]{}]*)\s+)+")


def load_yaml(spans: DataSpans) -> ConfigNode | None:
    """The document's value (None for an empty document); LoadError where PyYAML fails."""
    text = spans.mapped.text
    try:
        root = yaml.compose(text, Loader=yaml.Loader)
    except yaml.MarkedYAMLError as error:
        raise _yaml_error(spans, error) from None
    except yaml.YAMLError as error:
        raise _error(spans, 0, f"invalid YAML: {error}") from None
    if root is None:
        return None
    return _Builder(spans).build(root)


def _yaml_error(spans: DataSpans, error: yaml.MarkedYAMLError) -> LoadError:
    mark = error.problem_mark or error.context_mark
    offset = mark.index if mark is not None else 0
    problem = error.problem or error.context or "cannot be read"
    return _error(spans, offset, f"invalid YAML: {problem}")


def _error(spans: DataSpans, offset: int, message: str) -> LoadError:
    offset = min(offset, len(spans.mapped.text))
    return LoadError(SYNTAX_ERROR, message, spans.origin(offset, offset).span)


class _Unknown(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Builder:
    def __init__(self, spans: DataSpans) -> None:
        self.spans = spans
        self.text = spans.mapped.text
        # A fresh constructor per file: PyYAML's own code for the standard scalar tags.
        self.constructor = SafeConstructor()
        self.extents: dict[int, tuple[int, int]] = {}
        self.built: dict[int, ConfigNode] = {}
        self.sizes: dict[int, int] = {}
        self.active: set[int] = set()

    def build(self, root: Node) -> ConfigNode:
        self._measure(root)  # before merge keys rewrite the mappings
        return self._value(root)

    # -- where each node is -------------------------------------------------------------------

    def _measure(self, root: Node) -> None:
        pending: list[tuple[Node, bool]] = [(root, False)]
        entered: set[int] = set()  # an alias may point back at a node being measured
        while pending:
            node, children_done = pending.pop()
            if id(node) in self.extents or (not children_done and id(node) in entered):
                continue
            entered.add(id(node))
            children = _children(node)
            if not children_done and children:
                pending.append((node, True))
                pending.extend((child, False) for child in children if id(child) not in entered)
                continue
            self.extents[id(node)] = self._extent(node)

    def _extent(self, node: Node) -> tuple[int, int]:
        start, end = node.start_mark.index, node.end_mark.index
        properties = _PROPERTIES.match(self.text, start, end)  # `&anchor` and `!tag`
        if properties is not None:
            start = properties.end()
        if isinstance(node, ScalarNode):
            if node.style in ("|", ">"):
                end = start + len(self.text[start:end].rstrip())
            return start, max(end, start)
        if node.flow_style or not node.value:
            return start, end
        last = node.value[-1]
        last_node = last[1] if isinstance(node, MappingNode) else last
        return start, max(self.extents.get(id(last_node), (start, end))[1], start)

    # -- values ------------------------------------------------------------------------------

    def _value(self, node: Node) -> ConfigNode:
        key = id(node)
        if key in self.built:
            return self.built[key]
        if key in self.active:
            raise self._fail(node, "invalid YAML: an alias refers to the node that contains it")
        self.active.add(key)
        try:
            value = self._construct(node)
        except _Unknown as unknown:
            value = self._unknown(node, unknown.reason)
            self.sizes[key] = 1
        finally:
            self.active.discard(key)
        self.built[key] = value
        return value

    def _construct(self, node: Node) -> ConfigNode:
        tag = node.tag
        if isinstance(node, ScalarNode) and tag in _SCALAR_TAGS:
            return ScalarValue(self._scalar(node), self._origin(node))
        if tag == _TAG + "timestamp" and isinstance(node, ScalarNode):
            raise _Unknown("a YAML timestamp (MMEngine reads it as a date or datetime object)")
        if tag in (_TAG + "seq", _TAG + "python/tuple") and isinstance(node, SequenceNode):
            items = tuple(self._value(child) for child in node.value)
            self._count(node, [id(child) for child in node.value])
            return SequenceValue(items, tag.endswith("tuple"), self._origin(node))
        if tag == _TAG + "map" and isinstance(node, MappingNode):
            return self._mapping(node)
        if not _constructor_exists(tag):
            raise self._fail(node, f"invalid YAML: could not determine a constructor for {tag!r}")
        if isinstance(node, ScalarNode | SequenceNode | MappingNode) and tag.startswith(
            (_TAG + "python/", _TAG + "set", _TAG + "omap", _TAG + "pairs")
        ):
            raise _Unknown(f"`{_short_tag(tag)}`: cfglint never constructs Python objects")
        raise self._fail(node, f"invalid YAML: `{_short_tag(tag)}` on a {node.id} node")

    def _mapping(self, node: MappingNode) -> ConfigNode:
        try:
            self.constructor.flatten_mapping(node)  # PyYAML's own merge (`<<`) semantics
        except ConstructorError as error:
            raise _yaml_error(self.spans, error) from None
        entries: dict[object, ConfigNode] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node)
            entries[key] = self._value(value_node)
        self._count(node, [id(value) for _key, value in node.value])
        return DictNode(entries, self._origin(node))

    def _key(self, node: Node) -> object:
        value = self._value(node)
        if isinstance(value, UnknownNode):
            raise _Unknown(f"a key cfglint cannot evaluate: {value.source}")
        if isinstance(value, DictNode) or (isinstance(value, SequenceValue) and not value.is_tuple):
            raise self._fail(node, "invalid YAML: found unhashable key")
        if isinstance(value, SequenceValue):
            return tuple(self._plain(item) for item in value.items)
        assert isinstance(value, ScalarValue)
        return value.value

    def _plain(self, value: ConfigNode) -> object:
        if isinstance(value, ScalarValue):
            return value.value
        if isinstance(value, SequenceValue) and value.is_tuple:
            return tuple(self._plain(item) for item in value.items)
        raise _Unknown("a key holding a list or a dict")

    def _scalar(self, node: ScalarNode) -> object:
        try:
            return self.constructor.construct_object(node, deep=True)
        except ConstructorError as error:
            raise _yaml_error(self.spans, error) from None
        except (ValueError, TypeError) as error:  # `!!int abc`: PyYAML fails the same way
            raise self._fail(node, f"invalid YAML: {error}") from None

    def _count(self, node: Node, children: list[int]) -> None:
        size = 1 + sum(self.sizes.get(child, 1) for child in children)
        self.sizes[id(node)] = size
        if size > MAX_ELEMENTS:  # aliases can make a small file expand without bound
            raise _Unknown(TOO_LARGE)

    # -- helpers -----------------------------------------------------------------------------

    def _origin(self, node: Node) -> Origin:
        start, end = self.extents.get(id(node)) or self._extent(node)
        return self.spans.origin(start, end)

    def _unknown(self, node: Node, reason: str) -> UnknownNode:
        start, end = self.extents.get(id(node)) or self._extent(node)
        source = self.spans.source(node.start_mark.index, end)
        return UnknownNode(source, reason, self.spans.origin(start, end))

    def _fail(self, node: Node, message: str) -> LoadError:
        return _error(self.spans, node.start_mark.index, message)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _constructor_exists(tag: str) -> bool:
    if tag in Constructor.yaml_constructors:
        return True
    return any(tag.startswith(prefix) for prefix in Constructor.yaml_multi_constructors if prefix)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
