"""Hardware targets as data: schemas/*.yaml, read into frozen dataclasses (strict_model.py)."""

from __future__ import annotations

from pathlib import Path

from cfglint.targets.load import Target
from cfglint.targets.registry import TargetRegistry

__all__ = ["Target", "TargetRegistry", "load_target"]


def load_target(name: str, config: Path | None = None) -> Target:
    """The target called `name`, as seen from `config`'s project (its `extra-targets`)."""
    from cfglint.settings import settings_for

    extra = settings_for(config).extra_targets if config is not None else ()
    return TargetRegistry(extra).get(name)
