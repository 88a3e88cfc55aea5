"""Pydantic models of a target file (schemas/*.yaml): what a hardware target allows."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from cfglint.strict_model import STRICT_KEBAB

Scalar = str | int | float | bool | None

class FixPolicy(BaseModel):
    """The value a fix writes (or that it removes the key) and whether the fix is safe."""

    model_config = STRICT_KEBAB

    value: Scalar = None
    remove: bool = False
    safe: bool = True

    @model_validator(mode="after")
    def _value_or_remove(self) -> FixPolicy:
        if self.remove and "value" in self.model_fields_set:
            raise ValueError("a fix either writes a value or removes the key, not both")
        if not self.remove and "value" not in self.model_fields_set:
            raise ValueError("a fix needs `value: ...` or `remove: true`")
        return self


class KeyPolicy(BaseModel):
    """What one config key may hold on a target, and which rule reports it."""

    model_config = STRICT_KEBAB

    rule: Annotated[str, Field(pattern=r"^CL[0-9]{3}$")]
    allowed: tuple[Scalar, ...] | None = None
    forbidden: tuple[Scalar, ...] | None = None
    # What MMEngine uses when the key is absent (only meaningful with `allowed`).
    default: Scalar = None
    # The key must be written out: being absent is not the same as holding an allowed value
    # (fix placement must not remove it from a base such a target inherits).
    required: bool = False
    forbidden_literal_list: bool = False
    fix: FixPolicy | None = None
    # What the policy takes for granted where the facts are not certain (a vendor library's
    # behaviour): every finding under it says so.
    assumes: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> KeyPolicy:
        if self.allowed is not None and self.forbidden is not None:
            raise ValueError("give either `allowed` or `forbidden`, not both")
        if self.allowed is not None and not self.allowed:
            raise ValueError("`allowed` must list at least one value")
        fix = self.fix
        if fix is not None and not fix.remove and not self.value_ok(fix.value):
            raise ValueError(f"the fix value {fix.value!r} is not itself allowed")
        return self

    @property
    def has_default(self) -> bool:
        return "default" in self.model_fields_set

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


class VendorImportPolicy(BaseModel):
    """The import that makes MMEngine see the accelerator, and the target as MMEngine then sees
    it (`keys` merged over the target's own, as `extends:` merges)."""

    model_config = STRICT_KEBAB

    library: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    modules: tuple[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")], ...]
    statement: str
    mmengine_device: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    cuda: bool
    # What cfglint takes for granted about the vendor library (shown where it matters).
    assumes: str = ""
    # Merged over the target's `keys` field by field (`null` drops a check), then validated as
    # the target MMEngine sees once the import is in place.
    keys: dict[str, dict[str, Any] | None] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _statement_imports(self) -> VendorImportPolicy:
        if not self.modules:
            raise ValueError("`modules` must name at least one module")
        return self


class InitDistPolicy(BaseModel):
    """What `mmengine.dist.init_dist` does on this host (`_init_dist_pytorch` in 0.10): the
    call that picks the rank's device, and the collective backend it really uses."""

    model_config = STRICT_KEBAB

    set_device: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")]
    # The backend init_dist hard-codes on this host (`hccl`, `cncl`, `mccl`); None: the one the
    # config asks for (`env_cfg.dist_cfg.backend`, `nccl` when absent).
    backend: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")] | None = None


class HostPolicy(BaseModel):
    """What the target's host does with the calls an entry script makes."""

    model_config = STRICT_KEBAB

    # mmengine.device.get_device() on this host when the entry script does nothing special.
    mmengine_device: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    cuda: bool  # torch.cuda calls work
    init_dist: InitDistPolicy = InitDistPolicy(set_device="torch.cuda.set_device")
    # Whether torch's SyncBatchNorm trains on the device MMEngine resolves there (its forward
    # accepts cuda, hpu, xpu and the privateuse1 backend); absent: not known, not checked.
    sync_batchnorm: bool | None = None
    vendor_import: VendorImportPolicy | None = None


class ExamplePolicy(BaseModel):
    """An INVALID example of a target file: a config and the codes `check` reports for it."""

    model_config = STRICT_KEBAB

    config: str
    codes: tuple[Annotated[str, Field(pattern=r"^CL[0-9]{3}$")], ...]


class ExamplesPolicy(BaseModel):
    """A target's VALID configs (no error on it) and INVALID ones (with their codes): its
    tests and the examples of its page under docs/targets/."""

    model_config = STRICT_KEBAB

    valid: tuple[str, ...] = ()
    invalid: tuple[ExamplePolicy, ...] = ()


class TargetFile(BaseModel):
    """One target file after `extends:` has been merged in."""

    model_config = STRICT_KEBAB

    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    description: str
    device: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
    # Only for a file without `host:` (written before hosts were data): whether
    # get_device() returns `device` on its host. With `host:`, that is `host.mmengine-device`.
    mmengine_knows_device: bool | None = None
    extends: str | None = None
    host: HostPolicy | None = None
    examples: ExamplesPolicy = ExamplesPolicy()
    keys: dict[
        Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")],
        KeyPolicy,
    ]
