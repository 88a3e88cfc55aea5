"""The one table of rule codes: what each reads, how severe it is, and what its fix may be.

Every step reads it: a target file may configure only the codes with a `key` (and only at that
key); the engine runs the `every-target` codes on every config whatever its target; the
reports take a code's severity from here; docs/rules/index.md prints it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from cfglint.types import Severity

# policy: runs where the config's target names the code under `key` in its `keys:`.
# every-target: a fact about MMEngine, not the hardware: runs for every target, reading the
#   target's `host:` facts where the hardware matters.
# launch: reads the entry script of a launch (the target's `host:` facts decide).
# loader: the loader reports it (the config could not be resolved).
Scope = Literal["policy", "every-target", "launch", "loader"]
# target: the target file says what the fix writes and whether it is safe.
FixSafety = Literal["target", "safe", "unsafe", "none"]


@dataclass(frozen=True, slots=True)
class Code:
    scope: Scope
    severity: Severity
    fix: FixSafety
    key: str | None = None  # the config key a target's policy for the code names


# The loader's codes, by name: the steps that raise or read them name them so.
SYNTAX_ERROR = "CL901"
UNREADABLE_CONFIG = "CL902"
MISSING_BASE = "CL903"
CYCLIC_BASE = "CL904"
MMENGINE_REFUSES = "CL905"
UNKNOWN_VALUE = "CL906"
NOT_A_CONFIG = "CL907"
# The codes that say a config could not be resolved at all (a noqa cannot silence them).
UNRESOLVED = frozenset(
    {SYNTAX_ERROR, UNREADABLE_CONFIG, MISSING_BASE, CYCLIC_BASE, MMENGINE_REFUSES}
)


CODES: Mapping[str, Code] = {
    "CL101": Code("policy", "error", "target", "env_cfg.dist_cfg.backend"),
    "CL102": Code("policy", "error", "none", "launcher"),
    "CL103": Code("policy", "info", "none", "env_cfg.dist_cfg.backend"),
    "CL201": Code("policy", "error", "target", "model_wrapper_cfg.device_ids"),
    "CL202": Code("policy", "error", "target", "model_wrapper_cfg.output_device"),
    "CL203": Code("policy", "error", "target", "model_wrapper_cfg.device_ids"),
    "CL301": Code("policy", "error", "target", "env_cfg.cudnn_benchmark"),
    "CL302": Code("every-target", "warning", "safe"),
    "CL303": Code("every-target", "warning", "safe"),
    "CL401": Code("launch", "error", "unsafe"),
    "CL402": Code("launch", "error", "none"),
    "CL403": Code("every-target", "error", "none"),
    "CL501": Code("policy", "error", "none", "optim_wrapper.type"),
    "CL502": Code("every-target", "error", "none"),
    "CL901": Code("loader", "error", "none"),
    "CL902": Code("loader", "error", "none"),
    "CL903": Code("loader", "error", "none"),
    "CL904": Code("loader", "error", "none"),
    "CL905": Code("loader", "error", "none"),
    "CL906": Code("loader", "error", "none"),
    "CL907": Code("loader", "warning", "none"),
}

# The config key each code a target file may configure reads.
RULE_KEYS: Mapping[str, str] = {
    code: entry.key for code, entry in CODES.items() if entry.key is not None
}


def severity_of(code: str) -> Severity:
    entry = CODES.get(code)
    return entry.severity if entry is not None else "error"
