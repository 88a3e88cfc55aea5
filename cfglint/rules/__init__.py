"""The rule catalogue."""

from __future__ import annotations

import re

from cfglint.rules import (
    cl9xx_loader,
    cl101_dist_backend,
    cl102_launcher,
    cl103_dist_backend_ignored,
    cl201_ddp_device_ids,
    cl202_output_device,
    cl203_literal_device_ids,
    cl301_cudnn_benchmark,
    cl302_legacy_keys,
    cl303_find_unused_ignored,
    cl401_vendor_import,
    cl402_cuda_calls,
    cl403_cuda_device_string,
    cl501_amp_optim_wrapper,
    cl502_sync_bn,
)
from cfglint.rules.base import Rule
from cfglint.types import Applicability, RuleInfo

CHECK_RULES: tuple[Rule, ...] = (
    cl101_dist_backend.RULE,
    cl102_launcher.RULE,
    cl103_dist_backend_ignored.RULE,
    cl201_ddp_device_ids.RULE,
    cl202_output_device.RULE,
    cl203_literal_device_ids.RULE,
    cl301_cudnn_benchmark.RULE,
    cl302_legacy_keys.RULE,
    cl303_find_unused_ignored.RULE,
    cl401_vendor_import.RULE,
    cl402_cuda_calls.RULE,
    cl403_cuda_device_string.RULE,
    cl501_amp_optim_wrapper.RULE,
    cl502_sync_bn.RULE,
)
ALL_RULES: tuple[Rule, ...] = (*CHECK_RULES, *cl9xx_loader.RULES)
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}


def rule_info(rule: Rule) -> RuleInfo:
    applicability = Applicability.SAFE if rule.fixable else None
    return RuleInfo(rule.code, rule.name, rule.summary, rule.url, applicability, rule.what)


def all_rule_infos() -> dict[str, RuleInfo]:
    return {rule.code: rule_info(rule) for rule in ALL_RULES}


_SELECTOR = re.compile(r"CL[0-9]{0,3}")


def is_selector(text: str) -> bool:
    """`ALL`, a rule code, or a prefix of one (`CL`, `CL2`, `CL20`), as ruff's selectors."""
    if text == "ALL":
        return True
    return _SELECTOR.fullmatch(text) is not None and any(
        code.startswith(text) for code in RULES_BY_CODE
    )
