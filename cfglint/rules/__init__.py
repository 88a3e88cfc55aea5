"""The rule catalogue."""

from __future__ import annotations

import importlib
import pkgutil
import re

from cfglint.rules import cl9xx_loader
from cfglint.rules.base import Rule
from cfglint.types import Applicability, RuleInfo

# One module per rule, named after its code (`cl201_ddp_device_ids.py`, exporting `RULE`): adding
# a rule is adding its module and its row in cfglint/codes.py, nothing else.
_RULE_MODULE = re.compile(r"cl[1-8][0-9]{2}_[a-z0-9_]+")


def _rule_modules() -> tuple[Rule, ...]:
    names = sorted(
        info.name
        for info in pkgutil.iter_modules(__path__)
        if _RULE_MODULE.fullmatch(info.name)
    )
    rules = []
    for name in names:
        rule = getattr(importlib.import_module(f"{__name__}.{name}"), "RULE", None)
        if not isinstance(rule, Rule):
            raise TypeError(f"cfglint.rules.{name} must define RULE = Rule(...)")
        rules.append(rule)
    return tuple(rules)


CHECK_RULES: tuple[Rule, ...] = _rule_modules()
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
