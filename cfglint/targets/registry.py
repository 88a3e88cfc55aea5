"""Find target files (shipped in the wheel, plus a project's `extra-targets`) by name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cfglint.errors import UserError
from cfglint.targets.load import RawTarget, Target, merge_extends, read_raw, validate


def shipped_targets_dir() -> Path:
    package_dir = Path(__file__).resolve().parent.parent
    # In the wheel the schemas sit inside the package; in a source checkout, beside it.
    for candidate in (package_dir / "schemas", package_dir.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    raise UserError("cannot find the shipped target files (schemas/): broken installation")


class TargetRegistry:
    """All targets visible to one project: shipped ones, then the project's own."""

    def __init__(self, extra_files: Sequence[Path] = ()) -> None:
        self._raw: dict[str, RawTarget] = {}
        for path in sorted(shipped_targets_dir().glob("*.yaml")):
            self._add(read_raw(path))
        for path in extra_files:
            self._add(read_raw(path))
        self._built: dict[str, Target] = {}

    def _add(self, raw: RawTarget) -> None:
        name = raw.data.get("name")
        if not isinstance(name, str):
            raise UserError(f"{raw.path}:1: a target file needs a `name:`")
        # A project's own file may replace a shipped target of the same name.
        self._raw[name] = raw

    def names(self) -> list[str]:
        return sorted(self._raw)

    def get(self, name: str) -> Target:
        if name not in self._built:
            self._built[name] = self._build(name)
        return self._built[name]

    def _build(self, name: str) -> Target:
        chain = self._chain(name)
        data: Any = chain[-1].data
        for child in reversed(chain[:-1]):
            data = merge_extends(child, data)
        model = validate(data, chain)
        return Target(
            name=model.name,
            description=model.description,
            device=model.device,
            mmengine_knows_device=model.mmengine_knows_device,
            keys=model.keys,
            sources=tuple(raw.path for raw in chain),
        )

    def _chain(self, name: str) -> list[RawTarget]:
        if name not in self._raw:
            known = ", ".join(self.names())
            raise UserError(f"unknown target {name!r} (known targets: {known})")
        chain = [self._raw[name]]
        seen = {name}
        while (parent := chain[-1].data.get("extends")) is not None:
            if parent in seen:
                raise UserError(f"{chain[0].path}:1: `extends:` cycle through target {parent!r}")
            if parent not in self._raw:
                raise UserError(f"{chain[-1].path}:1: `extends: {parent}`: no such target")
            seen.add(parent)
            chain.append(self._raw[parent])
        return chain
