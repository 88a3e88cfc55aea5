"""`cfglint review`: the pull-request review bot (docs/integrations.md, "Review bot")."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from cfglint.cli.common import EXIT_CLEAN, EXIT_ERROR, EXIT_VIOLATIONS, codes_argument
from cfglint.cli.notices import in_print_order, print_notices
from cfglint.errors import UserError
from cfglint.report.context import ReportContext
from cfglint.review import document, event, scope
from cfglint.review.collect import Checked, CheckOptions, check_files
from cfglint.review.comments import place_findings
from cfglint.review.diff import pull_request_diff
from cfglint.review.extra import require_http_client
from cfglint.review.fallback import annotate, write_step_summary
from cfglint.review.findings import repo_path
from cfglint.review.gitcmd import git, work_tree_root
from cfglint.review.model import Plan
from cfglint.review.reconcile import EVENTS, MAX_INLINE_COMMENTS
from cfglint.rules import all_rule_infos
from cfglint.types import Notice, NoticeKind

FAIL_ON = ("error", "warning", "never")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "review", help="review a pull request: inline comments with suggested fixes"
    )
    where = parser.add_argument_group("the pull request (in GitHub Actions: from the event)")
    where.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    where.add_argument("--pr", type=int, metavar="N", help="the pull request number")
    where.add_argument("--base", metavar="REV", help="the base commit (default: the event's)")
    where.add_argument("--head", metavar="REV", help="the head commit (default: HEAD)")
    where.add_argument("--api-url", metavar="URL", help="default: $GITHUB_API_URL or GitHub's")
    where.add_argument(
        "--token-env",
        default="GITHUB_TOKEN",
        metavar="NAME",
        help="the environment variable holding the token (default: GITHUB_TOKEN)",
    )
    what = parser.add_argument_group("what it checks and posts")
    what.add_argument("--target", help="check every config for this target (beats settings)")
    what.add_argument("--select", type=codes_argument, metavar="CODES")
    what.add_argument("--ignore", type=codes_argument, default=(), metavar="CODES")
    what.add_argument(
        "--files",
        default=scope.DEFAULT_FILES,
        metavar="REGEX",
        help="changed files to check (default: the pre-commit hook's, files under configs/)",
    )
    what.add_argument("--event", choices=EVENTS, default="COMMENT", help="the review's event")
    what.add_argument("--max-comments", type=int, default=MAX_INLINE_COMMENTS, metavar="N")
    what.add_argument("--fail-on", choices=FAIL_ON, default="error", help="exit 1 on these")
    mode = parser.add_argument_group("modes")
    mode.add_argument(
        "--dry-run", action="store_true", help="print the review JSON it would post; post nothing"
    )
    mode.add_argument("--review-file", type=Path, metavar="PATH", help="also write the JSON here")
    mode.add_argument(
        "--post-from",
        type=Path,
        metavar="PATH",
        help="post a review JSON written by a pull_request run (a workflow_run job)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    flags = event.Flags(args.repo, args.pr, args.base, args.head, args.api_url)
    inputs = event.review_inputs(flags, os.environ)
    if inputs.event_name == "pull_request_target":
        _warn(
            "running on pull_request_target: never check out and run pull-request code in "
            "this workflow (docs/integrations.md)"
        )
    if args.post_from is not None:
        from cfglint.review.post_from import post_review_file

        return post_review_file(args, inputs)
    repo = work_tree_root(Path.cwd())
    base = inputs.base or _base_from_api(args, inputs)
    _require_checkout_at(repo, inputs.head)
    diff = pull_request_diff(repo, base, inputs.head)
    paths = scope.files_to_check(repo, diff, scope.files_pattern(args.files))
    checked = check_files(repo, paths, CheckOptions(args.target, args.select, tuple(args.ignore)))
    workspace = os.environ.get("GITHUB_WORKSPACE")
    context = ReportContext(
        cwd=repo,
        rules=all_rule_infos(),
        color=False,
        annotation_root=Path(workspace) if workspace else repo,
    )
    findings = place_findings(checked.violations, diff, repo, context)
    configs = tuple(repo_path(config, repo) for config in checked.configs)
    # The errors are the review's to say (its "Not checked" list); the rest goes to stderr.
    errors = [notice for notice in checked.notices if notice.kind is NoticeKind.ERROR]
    plan = Plan(diff.head, findings, configs, tuple(notice.message for notice in errors))
    print_notices(n for n in in_print_order(checked.notices) if n.kind is not NoticeKind.ERROR)
    complete = not any(notice.fails for notice in checked.notices)
    review = document.review_document(plan, inputs.repo, inputs.pull_request, args.event)
    if args.review_file is not None:
        _write(args.review_file, document.dumps(review))
    if args.dry_run:
        sys.stdout.write(document.dumps(review))
        _summary_line(plan, "dry run: nothing posted", sys.stderr, complete)
    else:
        outcome = _post(args, inputs, plan, checked, context)
        write_step_summary(inputs.step_summary, plan)
        _summary_line(plan, outcome, sys.stdout, complete)
    return _exit_code(checked, plan, args.fail_on)


def _base_from_api(args: argparse.Namespace, inputs: event.ReviewInputs) -> str:
    if args.dry_run or inputs.repo is None or inputs.pull_request is None:
        raise UserError(
            "no base commit: pass --base REV (in GitHub Actions it comes from the "
            "pull_request event)"
        )
    from cfglint.review.session import api_session

    with api_session(args, inputs) as api:
        pull: Any = api.pull_request()
    sha = pull.get("base", {}).get("sha") if isinstance(pull, dict) else None
    if not isinstance(sha, str):
        raise UserError(f"pull request #{inputs.pull_request}: GitHub gave no base commit")
    return sha


def _require_checkout_at(repo: Path, head: str) -> None:
    """The files read are the work tree's: they must be the head's, or lines would not match."""
    here = git(repo, "rev-parse", "HEAD^{tree}").strip()
    wanted = git(repo, "rev-parse", f"{head}^{{tree}}").strip()
    if here != wanted:
        raise UserError(
            f"the checkout is not the pull request's head {head}: check it out (actions/checkout "
            "with `ref: ${{ github.event.pull_request.head.sha }}`)"
        )
    if git(repo, "status", "--porcelain", "--untracked-files=no").strip():
        raise UserError("the work tree has uncommitted changes: the review reads commits")


def _post(
    args: argparse.Namespace,
    inputs: event.ReviewInputs,
    plan: Plan,
    checked: Checked,
    context: ReportContext,
) -> str:
    if inputs.repo is None or inputs.pull_request is None:
        raise UserError("which pull request? pass --repo OWNER/NAME and --pr N (or --dry-run)")
    require_http_client()
    from cfglint.review.github_api import PermissionDenied
    from cfglint.review.publish import publish
    from cfglint.review.session import api_session

    try:
        with api_session(args, inputs) as api:
            posted = publish(api, plan, args.event, args.max_comments)
    except PermissionDenied as error:
        _warn(
            f"{error}: the token cannot write to {inputs.repo}#{inputs.pull_request} (a pull "
            "request from a fork?): findings go to annotations and the job summary instead"
        )
        annotate(checked.violations, context)
        return "not posted: read-only token"
    print_notices(posted.notices)
    return describe(posted)


def describe(posted: Any) -> str:
    """What a post did, in one line."""
    actions = posted.actions
    created = actions.create["comments"] if actions.create is not None else []
    parts = []
    if actions.create is not None:
        with_suggestion = sum("```suggestion" in comment["body"] for comment in created)
        parts.append(
            f"review posted with {len(created)} inline comments ({with_suggestion} with a "
            "suggestion)"
        )
    if posted.updated:
        parts.append("summary updated")
    if actions.kept:
        parts.append(f"{actions.kept} inline comments already there")
    if actions.fixed:
        parts.append(f"{len(actions.fixed)} earlier findings fixed")
    if posted.dismissed:
        parts.append(f"{posted.dismissed} review requesting changes dismissed")
    return "; ".join(parts) or "nothing new to post"


def _summary_line(plan: Plan, outcome: str, stream: Any, complete: bool) -> None:
    """`complete`: no error or internal error (the review's problems, or on stderr)."""
    errors = len(plan.failing)
    warnings = len(plan.findings) - errors
    if not plan.findings:
        verdict = "All checks passed!" if plan.checked and complete else "No findings."
    else:
        found = f"{errors} error{'s' if errors != 1 else ''}"
        if warnings:
            found += f" and {warnings} warning{'s' if warnings != 1 else ''}"
        verdict = f"Found {found}."
    print(f"cfglint review: {outcome}.", file=stream)
    print(verdict, file=stream)


def _exit_code(checked: Checked, plan: Plan, fail_on: str) -> int:
    if any(notice.fails for notice in checked.notices) or checked.unresolved:
        return EXIT_ERROR
    if fail_on == "error" and plan.failing:
        return EXIT_VIOLATIONS
    if fail_on == "warning" and plan.findings:
        return EXIT_VIOLATIONS
    return EXIT_CLEAN


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None


def _warn(message: str) -> None:
    print_notices([Notice.warning(message)])
