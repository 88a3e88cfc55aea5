"""A target file (schemas/*.yaml) as frozen data: what a hardware target allows.

Read by `cfglint.strict_model` from the fields' types (kebab-case keys, unknown keys rejected);
each `after_read` checks what holds between fields.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any

from cfglint.strict_model import Pattern, ReadError, given

Scalar = str | int | float | bool | None

_CODE = Pattern(r"CL[0-9]{3}")
_IDENTIFIER = Pattern(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED_NAME = Pattern(r"[A-Za-z_][A-Za-z0-9_.]*")
_DEVICE = Pattern(r"[a-z0-9_]+")
_CONFIG_KEY = Pattern(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True, slots=True, kw_only=True)
class FixPolicy:
    """The value a fix writes (or that it removes the key) and whether the fix is safe."""

    value: Scalar = None
    remove: bool = False
    safe: bool = True
    # Whether the file writes `value:` (`value: null` writes None).
    writes_value: bool = given("value")

    def after_read(self) -> None:
        if self.remove and self.writes_value:
            raise ReadError("a fix either writes a value or removes the key, not both")
        if not self.remove and not self.writes_value:
            raise ReadError("a fix needs `value: ...` or `remove: true`")


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyPolicy:
    """What one config key may hold on a target, and which rule reports it."""

    rule: Annotated[str, _CODE]
    allowed: tuple[Scalar, ...] | None = None
    forbidden: tuple[Scalar, ...] | None = None
    # What MMEngine uses when the key is absent (only meaningful with `allowed`).
    default: Scalar = None
    # Whether the file writes `default:` (`default: null` says MMEngine uses None).
    has_default: bool = given("default")
    # The key must be written out: being absent is not the same as holding an allowed value
    # (fix placement must not remove it from a base such a target inherits).
    required: bool = False
    forbidden_literal_list: bool = False
    fix: FixPolicy | None = None
    # What the policy takes for granted where the facts are not certain (a vendor library's
    # behaviour): every finding under it says so.
    assumes: str = ""

    def after_read(self) -> None:
        if self.allowed is not None and self.forbidden is not None:
            raise ReadError("give either `allowed` or `forbidden`, not both")
        if self.allowed is not None and not self.allowed:
            raise ReadError("`allowed` must list at least one value")
        fix = self.fix
        if fix is not None and not fix.remove and not self.value_ok(fix.value):
            raise ReadError(f"the fix value {fix.value!r} is not itself allowed")

    def value_ok(self, value: object) -> bool:
        """Whether a present value satisfies the policy (Python equality, bools not ints)."""
        if self.forbidden_literal_list and isinstance(value, list | tuple):
            return False
        if self.allowed is not None:
            return any(_same(value, allowed) for allowed in self.allowed)
        if self.forbidden is not None:
            return not any(_same(value, forbidden) for forbidden in self.forbidden)
        return True


def _same(left: object, right: object) -> bool:
    # True == 1 in Python, but `cudnn_benchmark=1` is not what a target file means by `true`.
    return (type(left) is type(right) and left == right) or (
        isinstance(left, int | float)
        and isinstance(right, int | float)
        and not isinstance(left, bool)
        and not isinstance(right, bool)
        and left == right
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class VendorImportPolicy:
    """The import that makes MMEngine see the accelerator, and the target as MMEngine then sees
    it (`keys` merged over the target's own, as `extends:` merges)."""

    library: Annotated[str, _IDENTIFIER]
    modules: tuple[Annotated[str, _DOTTED_NAME], ...]
    statement: str
    mmengine_device: Annotated[str, _DEVICE]
    cuda: bool
    # What cfglint takes for granted about the vendor library (shown where it matters).
    assumes: str = ""
    # Merged over the target's `keys` field by field (`null` drops a check), then validated as
    # the target MMEngine sees once the import is in place.
    keys: dict[str, dict[str, Any] | None] = dataclasses.field(default_factory=dict)

    def after_read(self) -> None:
        if not self.modules:
            raise ReadError("`modules` must name at least one module")


@dataclass(frozen=True, slots=True, kw_only=True)
class InitDistPolicy:
    """What `mmengine.dist.init_dist` does on this host (`_init_dist_pytorch` in 0.10): the
    call that picks the rank's device, and the collective backend it really uses."""

    set_device: Annotated[str, _DOTTED_NAME]
    # The backend init_dist hard-codes on this host (`hccl`, `cncl`, `mccl`); None: the one the
    # config asks for (`env_cfg.dist_cfg.backend`, `nccl` when absent).
    backend: Annotated[str, _DEVICE] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HostPolicy:
    """What the target's host does with the calls an entry script makes."""

    # mmengine.device.get_device() on this host when the entry script does nothing special.
    mmengine_device: Annotated[str, _DEVICE]
    cuda: bool  # torch.cuda calls work
    init_dist: InitDistPolicy = InitDistPolicy(set_device="torch.cuda.set_device")
    # Whether torch's SyncBatchNorm trains on the device MMEngine resolves there (its forward
    # accepts cuda, hpu, xpu and the privateuse1 backend); absent: not known, not checked.
    sync_batchnorm: bool | None = None
    vendor_import: VendorImportPolicy | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ExamplePolicy:
    """An INVALID example of a target file: a config and the codes `check` reports for it."""

    config: str
    codes: tuple[Annotated[str, _CODE], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExamplesPolicy:
    """A target's VALID configs (no error on it) and INVALID ones (with their codes): its
    tests and the examples of its page under docs/targets/."""

    valid: tuple[str, ...] = ()
    invalid: tuple[ExamplePolicy, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TargetFile:
    """One target file after `extends:` has been merged in."""

    name: Annotated[str, Pattern(r"[a-z0-9][a-z0-9._-]*")]
    description: str
    device: Annotated[str, _DEVICE]
    # Only for a file without `host:` (written before hosts were data): whether
    # get_device() returns `device` on its host. With `host:`, that is `host.mmengine-device`.
    mmengine_knows_device: bool | None = None
    extends: str | None = None
    host: HostPolicy | None = None
    examples: ExamplesPolicy = ExamplesPolicy()
    keys: dict[Annotated[str, _CONFIG_KEY], KeyPolicy]
