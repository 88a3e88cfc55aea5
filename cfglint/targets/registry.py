"""Find target files (shipped in the wheel, plus a project's `extra-targets`) by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from cfglint.errors import UserError
from cfglint.targets.load import (
    RawTarget,
    Target,
    merge_extends,
    merge_keys,
    read_raw,
    validate,
)
from cfglint.targets.model import TargetFile
from cfglint.targets.prepared import PreparedTargets
from cfglint.types import HostFacts, VendorImport


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
        shipped = shipped_targets_dir()
        prepared = PreparedTargets.read(shipped)
        for path in sorted(shipped.glob("*.yaml")):
            self._add(read_raw(path, shipped=True, prepared=prepared))
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
        sources = tuple(raw.path for raw in chain)
        vendor = model.host.vendor_import if model.host is not None else None
        host = self._host(model)
        variant: Target | None = None
        if vendor is not None:
            variant_data = dict(data)
            variant_data["keys"] = merge_keys(data.get("keys"), vendor.keys)
            variant_model = validate(variant_data, chain)
            # What the vendor import does to SyncBatchNorm is not in the file: not known.
            variant_host = replace(
                host, mmengine_device=vendor.mmengine_device, cuda=vendor.cuda, sync_batchnorm=None
            )
            variant = Target(
                name=model.name,
                description=model.description,
                device=model.device,
                mmengine_knows_device=vendor.mmengine_device == model.device,
                keys=variant_model.keys,
                sources=sources,
                host=variant_host,
                assumes=vendor.assumes,
            )
        return Target(
            name=model.name,
            description=model.description,
            device=model.device,
            # get_device() returns the target's own device on its host (cpu on a CPU host).
            mmengine_knows_device=host.mmengine_device == model.device,
            keys=model.keys,
            sources=sources,
            host=host,
            with_vendor_import=variant,
            assumes=vendor.assumes if vendor is not None else "",
            examples=model.examples,
        )

    def _host(self, model: TargetFile) -> HostFacts:
        """The host facts of a target; a target file without `host:` (written before hosts
        were data) gets what its device says: MMEngine's device or the CPU, CUDA on `cuda`."""
        absent = frozenset(self.vendor_libraries()) - self._own_library(model)
        if model.host is None:
            device = model.device if model.mmengine_knows_device else "cpu"
            return HostFacts(device, model.device == "cuda", None, absent)
        init_dist = model.host.init_dist
        vendor = model.host.vendor_import
        facts = None
        if vendor is not None:
            facts = VendorImport(
                vendor.modules,
                vendor.statement,
                vendor.mmengine_device,
                vendor.cuda,
                vendor.library,
            )
        return HostFacts(
            model.host.mmengine_device,
            model.host.cuda,
            facts,
            absent,
            init_dist.set_device,
            init_dist.backend,
            model.host.sync_batchnorm,
        )

    @staticmethod
    def _own_library(model: TargetFile) -> frozenset[str]:
        if model.host is None or model.host.vendor_import is None:
            return frozenset()
        return frozenset({model.host.vendor_import.library})

    def vendor_libraries(self) -> set[str]:
        """The vendor libraries the targets' hosts have, read from the files (unvalidated: a
        broken file only loses its own entry here, and fails when it is used)."""
        found: set[str] = set()
        for raw in self._raw.values():
            host = raw.data.get("host")
            vendor = host.get("vendor-import") if isinstance(host, Mapping) else None
            library = vendor.get("library") if isinstance(vendor, Mapping) else None
            if isinstance(library, str):
                found.add(library)
        return found

    def _chain(self, name: str) -> list[RawTarget]:
        if name not in self._raw:
            raise UserError(unknown_target(name, self.names()))
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


def unknown_target(name: str, known: Sequence[str]) -> str:
    """The message for a target name no target file defines, with the closest name."""
    # Imported here: difflib costs a check that names a known target more than it needs.
    from cfglint.suggest import did_you_mean

    return f"unknown target {name!r}{did_you_mean(name, known)} (known: {', '.join(known)})"
