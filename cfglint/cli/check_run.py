"""`cfglint check` and `cfglint fix`, once the cache (`cli/check_cmd.py`) has no result: the
whole pipeline, imported only then."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.cache.configs import ConfigCache
from cfglint.cache.store import Store, cache_dir
from cfglint.cli import progress
from cfglint.cli.common import EXIT_CLEAN, EXIT_ERROR, EXIT_VIOLATIONS
from cfglint.cli.exit_reasons import exit_reasons
from cfglint.cli.notices import in_print_order, print_notices
from cfglint.engine.fix_marks import planned_marks
from cfglint.engine.fix_request import FixRequest, PlannedFixes, wants_fix
from cfglint.engine.inheritors import InheritanceIndexes
from cfglint.engine.launches import EntrySpec, entry_spec
from cfglint.engine.run import CheckRequest, CheckResult, run_check
from cfglint.errors import UserError
from cfglint.loader import Loader
from cfglint.paths import git_work_tree
from cfglint.report import (
    ReportContext,
    render,
    render_statistics,
    render_statistics_json,
)
from cfglint.report.common import plural
from cfglint.report.diff import render_diff
from cfglint.rules import all_rule_infos
from cfglint.settings import settings_for
from cfglint.types import Notice

if TYPE_CHECKING:
    from cfglint.engine.fixes import FixOutcome, RoundProgress

EDIT_FORMATS = frozenset({"json", "sarif", "rdjson"})


def _color_wanted(output_format: str) -> bool:
    return output_format == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def run(args: argparse.Namespace) -> int:
    # Entered before anything reads a settings file: the cache records how each was read.
    with _config_cache(args) as cache:
        return _run(args, cache)


def _config_cache(args: argparse.Namespace) -> AbstractContextManager[ConfigCache | None]:
    """Each config's outcome from earlier runs (cfglint/cache/configs.py), unless --no-cache."""
    if args.no_cache:
        return contextlib.nullcontext()
    store = Store(cache_dir(args.cache_dir, Path.cwd()))
    return ConfigCache(store, [args.target, args.select, list(args.ignore)])


def _run(args: argparse.Namespace, cache: ConfigCache | None) -> int:
    paths = tuple(args.paths) or (Path("."),)
    request = CheckRequest(
        paths,
        args.target,
        args.select,
        tuple(args.ignore),
        args.force_exclude,
        _entries(args),
    )
    want_fix = bool(args.force_fix or getattr(args, "fix", False) or args.diff)
    add_noqa = bool(getattr(args, "add_noqa", False))
    if add_noqa and want_fix:
        raise UserError("--add-noqa cannot be used with --fix or --diff")
    show_progress = args.output_format == "text"
    placement = args.fix_placement or settings_for(paths[0]).table.fix_placement
    fix_request = FixRequest(placement, args.unsafe_fixes, args.target)
    fixed_count = 0
    fixing: tuple[Notice, ...] = ()  # what the fix loop tells
    indexes = InheritanceIndexes(cache.references if cache is not None else None)
    with progress.config_bar(show_progress, "checking") as bar:
        if want_fix:
            # Imported for a fix, or a report with edits, only: a check's text report gives
            # its `[*]` marks without the fix planning (engine/fix_marks.py).
            from cfglint.engine.fixes import fix_until_stable

            # Handed over, not kept here: the fix loop lets the first check's trees go early.
            outcome = fix_until_stable(
                request,
                run_check(request, Loader(), progress=bar, indexes=indexes, cache=cache),
                fix_request,
                write=not args.diff,
                indexes=indexes,
                round_progress=_rounds(bar),
                cache=cache,
            )
        else:
            result = run_check(request, Loader(), progress=bar, indexes=indexes, cache=cache)
    if add_noqa:
        return _add_noqa(result, paths, indexes)
    if want_fix:
        result = outcome.final
        fixing = outcome.notices
        if args.diff:
            return _print_diff(result, outcome)
        fixed_count = outcome.fixed_count
    # Only the machine formats print the edits themselves.
    with_edits = args.output_format in EDIT_FORMATS and not args.statistics
    planned = _with_fixes(result, fix_request, paths, with_edits, indexes, fixed=want_fix)
    notices = in_print_order([*result.notices, *planned.notices], fixing)
    failed = any(notice.fails for notice in notices)
    context = ReportContext(
        cwd=Path.cwd(),
        rules=all_rule_infos(),
        color=_color_wanted(args.output_format),
        fixed_count=fixed_count,
        show_fix_hints=True,
        unsafe_fixes=args.unsafe_fixes,
        complete=not failed and bool(result.targets),
        annotation_root=_github_workspace(),
        source_root=git_work_tree(Path.cwd()),
        exit_reasons=exit_reasons(result.violations, notices),
        notices=notices,
    )
    violations = planned.violations
    print_notices(notices)
    if args.statistics and args.output_format == "json":
        sys.stdout.write(render_statistics_json(violations, context))
    elif args.statistics:
        sys.stdout.write(render_statistics(violations, context))
    else:
        sys.stdout.write(render(violations, args.output_format, context))
    if failed:
        return EXIT_ERROR
    return _exit_code(args, result, fixed_count)


def _rounds(bar: progress.ConfigBar | None) -> RoundProgress | None:
    """Each fix round's check on the same bar, counted again from 0."""
    if bar is None:
        return None
    return lambda number: bar.stage(f"fixing, round {number}: checking")


def _print_diff(result: CheckResult, outcome: FixOutcome) -> int:
    """The diff on stdout (a patch, coloured only on a terminal); what it would fix, and why
    the exit code is 2, on stderr (ruff's `Would fix N errors.`)."""
    notices = in_print_order(result.notices, outcome.notices)
    print_notices(notices)
    sys.stdout.write(render_diff(outcome.diff, _color_wanted("text")))
    sys.stdout.flush()
    if outcome.would_fix:
        print(f"Would fix {plural(outcome.would_fix, 'error')}.", file=sys.stderr)
    reasons = exit_reasons(result.violations, notices)
    if reasons:
        print(f"Exit code 2: {'; '.join(reasons)}.", file=sys.stderr)
    if any(notice.fails for notice in notices) or result.unresolved:
        return EXIT_ERROR
    return EXIT_VIOLATIONS if outcome.diff else EXIT_CLEAN


def _add_noqa(result: CheckResult, paths: tuple[Path, ...], indexes: InheritanceIndexes) -> int:
    """`--add-noqa`: no report; what was added, and what could not be, on stderr (as ruff)."""
    # Imported here: only `--add-noqa` writes comments.
    from cfglint.cli.add_noqa import add_noqa_comments

    added = add_noqa_comments(result, paths, indexes)
    notices = in_print_order([*result.notices, *added.notices])
    print_notices(notices)
    if added.count:
        print(f"Added {plural(added.count, 'noqa directive')}.", file=sys.stderr)
    failed = any(notice.fails for notice in notices) or result.unresolved
    return EXIT_ERROR if failed else EXIT_CLEAN


def _entries(args: argparse.Namespace) -> tuple[EntrySpec, ...]:
    if args.entry is None:
        if args.entry_args:
            raise UserError("--entry-args needs --entry SCRIPT")
        return ()
    if not args.entry.is_file():
        raise UserError(f"{args.entry}: no such entry script")
    return (entry_spec(args.entry, args.entry_args, Path.cwd()),)


def _with_fixes(
    result: CheckResult,
    fix_request: FixRequest,
    paths: tuple[Path, ...],
    with_edits: bool,
    indexes: InheritanceIndexes,
    *,
    fixed: bool,
) -> PlannedFixes:
    """The violations with the fixes a report shows. After the fix loop, what it could not fix
    is not fixable, whatever a plan says: only the fixes it did not try (unsafe ones without
    `--unsafe-fixes`) are planned."""

    def planned(checked: CheckResult) -> PlannedFixes:
        if not with_edits:
            return planned_marks(checked, fix_request, paths, indexes)
        from cfglint.engine.fixes import planned_fixes

        return planned_fixes(checked, fix_request, paths, indexes=indexes)

    if not fixed:
        return planned(result)
    tried = [v for v in result.violations if wants_fix(v, fix_request)]
    untried = tuple(v for v in result.violations if not wants_fix(v, fix_request))
    untried_planned = planned(replace(result, violations=untried)) if untried else PlannedFixes(())
    unfixed = tuple(replace(violation, fix=None) for violation in tried)
    return PlannedFixes((*unfixed, *untried_planned.violations), untried_planned.notices)


def _github_workspace() -> Path | None:
    workspace = os.environ.get("GITHUB_WORKSPACE")
    return Path(workspace) if workspace else None


def _exit_code(args: argparse.Namespace, result: CheckResult, fixed_count: int) -> int:
    """Once no notice failed the run."""
    if result.unresolved:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if result.has_errors:
        return EXIT_VIOLATIONS
    if args.exit_non_zero_on_fix and fixed_count:
        return EXIT_VIOLATIONS
    return EXIT_CLEAN
