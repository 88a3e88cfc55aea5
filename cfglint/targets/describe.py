"""A target in words, from its file alone: for `cfglint targets NAME` and docs/targets/."""

from __future__ import annotations

from cfglint.codes import CODES
from cfglint.targets.load import Target


def host_lines(target: Target) -> list[str]:
    """What MMEngine does on the target's host, and what the vendor import changes."""
    host = target.host
    cuda = "work" if host.cuda else "fail"
    backend = (
        f"backend {host.init_dist_backend!r} whatever env_cfg.dist_cfg says"
        if host.init_dist_backend is not None
        else "the backend env_cfg.dist_cfg names ('nccl' when absent)"
    )
    lines = [
        f"host: MMEngine resolves {host.mmengine_device!r}; torch.cuda calls {cuda}",
        f"init_dist: {host.init_dist_set_device}(...), then {backend}",
    ]
    vendor = host.vendor_import
    if vendor is not None:
        lines.append(
            f"vendor import: `{vendor.statement.split('#')[0].strip()}` before mmengine: "
            f"MMEngine resolves {vendor.mmengine_device!r}; torch.cuda calls "
            f"{'work' if vendor.cuda else 'fail'}"
        )
        if target.assumes:
            lines.append(f"assumes: {target.assumes}")
    return lines


def check_lines(target: Target) -> list[str]:
    """One line per checked key: the rule, what passes, and the fix."""
    lines = []
    for key, policy in target.keys.items():
        if policy.allowed is not None:
            allowed = "one of " + ", ".join(repr(v) for v in policy.allowed)
        elif policy.forbidden is not None:
            allowed = "not " + ", ".join(repr(v) for v in policy.forbidden)
        else:
            allowed = "no literal list" if policy.forbidden_literal_list else "anything"
        fix = "no fix"
        if policy.fix is not None:
            what = "remove the key" if policy.fix.remove else f"write {policy.fix.value!r}"
            fix = f"fix: {what} ({'safe' if policy.fix.safe else 'unsafe'})"
        assumes = f"; assuming {policy.assumes}" if policy.assumes else ""
        lines.append(f"{policy.rule}  {key}: {allowed}; {fix}{assumes}")
    return lines


def every_target_codes() -> list[str]:
    """The codes that run whatever the target (reading its host facts where they matter)."""
    return [code for code, entry in CODES.items() if entry.scope == "every-target"]
