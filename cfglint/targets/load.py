"""Read target files, merge `extends:`, validate them (`cfglint.strict_model`).

A project's own target files (`extra-targets`) are read with ruamel.yaml's round-trip loader, as
they always were: YAML 1.2, with line numbers. The shipped ones, read by every check, with
PyYAML's C loader: over 20 times faster, and a check need not import ruamel.yaml. A test keeps
both parsers giving the same data for every shipped file, so that YAML 1.1 and 1.2 never differ
there. A mistake in a target file is a UserError naming the file and line of the offending
entry: a file read without line numbers is read again with ruamel.yaml to find it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfglint import files, strict_model
from cfglint.errors import UserError
from cfglint.strict_model import Location, ReadError
from cfglint.targets.catalogue import catalogue_problem
from cfglint.targets.model import ExamplesPolicy, KeyPolicy, TargetFile
from cfglint.targets.prepared import PreparedTargets
from cfglint.types import HostFacts


@dataclass(frozen=True, slots=True)
class RawTarget:
    path: Path
    text: str
    # A ruamel CommentedMap (with line numbers) for a project's file; plain dicts and lists
    # for a shipped one.
    data: Any


@dataclass(frozen=True, slots=True)
class Target:
    """A validated target, ready for the rules."""

    name: str
    description: str
    device: str
    mmengine_knows_device: bool
    keys: Mapping[str, KeyPolicy]
    sources: tuple[Path, ...]  # the file itself first, then what it extends
    host: HostFacts
    # The target as MMEngine sees it once the entry script imports the vendor library's
    # switch (`torch_gcu.transfer_to_gcu`) before mmengine; None when there is none.
    with_vendor_import: Target | None = None
    # What cfglint takes for granted about the vendor library (from the target file).
    assumes: str = ""
    # The file's VALID/INVALID configs: its tests and its page's examples.
    examples: ExamplesPolicy = dataclasses.field(default_factory=ExamplesPolicy)

    def policy_for(self, rule_code: str) -> tuple[str, KeyPolicy] | None:
        for key, policy in self.keys.items():
            if policy.rule == rule_code:
                return key, policy
        return None


def read_raw(
    path: Path, *, shipped: bool = False, prepared: PreparedTargets | None = None
) -> RawTarget:
    """A target file as YAML data: a shipped one (schemas/) read fast (from `prepared` while it
    holds the file's text), a project's own with line numbers."""
    try:
        text = files.read_text_capped(path, translate_newlines=True)
    except files.UnreadableFileError as error:
        raise UserError(f"{path}: cannot read target file: {error.reason}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read target file: {error}") from error
    data = prepared.data_for(path, text) if prepared is not None else None
    if data is None:
        data = parse_fast(path, text) if shipped else parse_round_trip(path, text)
    if not isinstance(data, Mapping):
        raise UserError(f"{path}:1: a target file must be a mapping with `name`, `device`, `keys`")
    return RawTarget(path, text, data)


def parse_round_trip(path: Path, text: str) -> Any:
    """YAML 1.2 with line numbers (ruamel.yaml's CommentedMap)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="rt").load(text)
    except YAMLError as error:
        raise _yaml_error(path, error) from error


def parse_fast(path: Path, text: str) -> Any:
    """Plain data from PyYAML's C loader (its pure-Python one where the C extension is missing)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as error:
        raise _yaml_error(path, error) from error


def _yaml_error(path: Path, error: Exception) -> UserError:
    mark = getattr(error, "problem_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return UserError(f"{path}{line}: invalid YAML in target file: {problem}")


def merge_extends(child: RawTarget, parent: Mapping[str, Any]) -> dict[str, Any]:
    """The child's fields over the parent's; each key policy merged field by field."""
    merged: dict[str, Any] = {k: v for k, v in parent.items() if k not in ("extends", "name")}
    for field, value in child.data.items():
        if field != "keys":
            merged[field] = value
    merged["keys"] = merge_keys(parent.get("keys"), child.data.get("keys"))
    return merged


def merge_keys(parent: Any, child: Any) -> dict[str, Any]:
    """Key policies of a derived target (or of a host with its vendor import): `key: null`
    drops the parent's check, a mapping is merged field by field."""
    keys: dict[str, Any] = {
        k: dict(v) if isinstance(v, Mapping) else v for k, v in (parent or {}).items()
    }
    for key, policy in (child or {}).items():
        if policy is None:
            keys.pop(key, None)
        elif isinstance(policy, Mapping):
            keys[key] = {**keys.get(key, {}), **policy}
        else:
            keys[key] = policy
    return keys


def validate(data: Mapping[str, Any], chain: list[RawTarget]) -> TargetFile:
    try:
        model = strict_model.read(TargetFile, data)
    except ReadError as error:
        raise UserError(f"{locate(error.where, chain)}: invalid target file: {error}") from error
    problem = catalogue_problem({key: policy.rule for key, policy in model.keys.items()})
    if problem is not None:
        key, message = problem
        where = locate(("keys", key, "rule"), chain)
        raise UserError(f"{where}: invalid target file: keys.{key}: {message}")
    return model


def locate(loc: Location, chain: list[RawTarget]) -> str:
    """`path:line` of the deepest entry of `loc` found, searching the derived file first."""
    for raw in chain:
        # Only on an error: a file read without line numbers is read again with them.
        node: Any = raw.data if hasattr(raw.data, "lc") else parse_round_trip(raw.path, raw.text)
        line: int | None = None
        for part in loc:
            if not isinstance(node, Mapping) or part not in node:
                break
            lc = getattr(node, "lc", None)
            if lc is not None:
                line = lc.key(part)[0] + 1
            node = node[part]
        if line is not None:
            return f"{raw.path}:{line}"
    return f"{chain[0].path}:1"
