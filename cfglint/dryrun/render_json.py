"""`cfglint dryrun --json`: the report for tools (schema in docs/dryrun.md)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from cfglint.dryrun.assess import DryRunReport
from cfglint.dryrun.result import LostRank, RankOutcome, RankResult

REPORT_SCHEMA_VERSION = 3


def _status(outcome: RankResult) -> str:
    if outcome.unsupported is not None:
        return "unsupported"
    return "ok" if outcome.ok else "failed"


def _rank(outcome: RankOutcome, report: DryRunReport) -> dict[str, Any]:
    if isinstance(outcome, LostRank):
        return {
            "rank": outcome.rank,
            "status": "lost",
            "phase": outcome.phase,
            "died": outcome.died,
            "reason": outcome.reason,
            "log_tail": outcome.log_tail,
        }
    data = dataclasses.asdict(outcome)
    data["status"] = _status(outcome)
    data["rules"] = [dataclasses.asdict(hit) for hit in report.rule_hits.get(outcome.rank, ())]
    return data


def render_json(report: DryRunReport) -> str:
    entry = report.entry
    document = {
        "schema": REPORT_SCHEMA_VERSION,
        "mode": "config" if entry is None else "entry",
        "config": None if report.config is None else str(report.config),
        "entry": None
        if entry is None
        else {"script": str(entry.script), "args": list(entry.args), "cwd": str(entry.cwd)},
        "target": {"name": report.target.name, "device": report.target.device},
        "world_size": report.world_size,
        "launcher": report.launcher,
        "ranks": [_rank(outcome, report) for outcome in report.outcomes],
        "notes": list(report.notes),
        "warnings": list(report.warnings),
        "problems": list(report.problems),
        "errors": list(report.errors),
        "exit_code": report.exit_code,
    }
    return json.dumps(document, indent=2)
