"""Read target files with ruamel.yaml, merge `extends:`, validate with Pydantic.

A mistake in a target file is a UserError naming the file and line of the offending entry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from cfglint import files
from cfglint.errors import UserError
from cfglint.targets.catalogue import catalogue_problem
from cfglint.targets.model import ExamplesPolicy, KeyPolicy, TargetFile
from cfglint.types import HostFacts


@dataclass(frozen=True, slots=True)
class RawTarget:
    path: Path
    data: Any  # ruamel CommentedMap: keeps line numbers for error messages


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


def read_raw(path: Path) -> RawTarget:
    try:
        text = files.read_text_capped(path, translate_newlines=True)
    except files.UnreadableFileError as error:
        raise UserError(f"{path}: cannot read target file: {error.reason}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read target file: {error}") from error
    try:
        data = YAML(typ="rt").load(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise UserError(f"{path}{line}: invalid YAML in target file: {problem}") from error
    if not isinstance(data, Mapping):
        raise UserError(f"{path}:1: a target file must be a mapping with `name`, `device`, `keys`")
    return RawTarget(path, data)


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
        model = TargetFile.model_validate(dict(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = locate(first["loc"], chain)
        location = ".".join(str(part) for part in first["loc"])
        raise UserError(f"{where}: invalid target file: {location}: {first['msg']}") from error
    problem = catalogue_problem({key: policy.rule for key, policy in model.keys.items()})
    if problem is not None:
        key, message = problem
        where = locate(("keys", key, "rule"), chain)
        raise UserError(f"{where}: invalid target file: keys.{key}: {message}")
    return model


def locate(loc: tuple[int | str, ...], chain: list[RawTarget]) -> str:
    """`path:line` of the deepest entry of `loc` found, searching the derived file first."""
    for raw in chain:
        node: Any = raw.data
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
