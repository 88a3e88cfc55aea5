"""`cfglint review --post-from FILE`: post a review JSON written by a `pull_request` run, from a
`workflow_run` job that has a token able to write (the two-workflow pattern for forks).

The file was made by a job that ran on the pull request's untrusted content, so nothing in it is
taken on trust: the repository is this workflow's own, the pull request must be the one whose
head commit the triggering run checked (the event's `workflow_run.head_sha`, which the fork
cannot change), and every field is checked (document.read_document).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from cfglint.cli.common import EXIT_CLEAN
from cfglint.cli.notices import print_notices
from cfglint.errors import UserError
from cfglint.review.document import read_document
from cfglint.review.event import ReviewInputs
from cfglint.review.fallback import write_step_summary
from cfglint.review.publish import publish
from cfglint.review.session import api_session
from cfglint.types import Notice


def post_review_file(args: argparse.Namespace, inputs: ReviewInputs) -> int:
    plan, number, _ = read_document(args.post_from)
    if args.pr is not None and args.pr != number:
        raise UserError(f"{args.post_from} is for pull request #{number}, not #{args.pr}")
    if inputs.run_head_sha is not None and inputs.run_head_sha != plan.head_sha:
        raise UserError(
            f"{args.post_from} is for commit {plan.head_sha[:12]}, but the run that wrote it "
            f"checked {inputs.run_head_sha[:12]}"
        )
    inputs = replace(inputs, pull_request=number)
    with api_session(args, inputs) as api:
        pull = api.pull_request()
        head = pull.get("head", {}).get("sha") if isinstance(pull, dict) else None
        if head != plan.head_sha:
            moved = Notice.warning(
                f"pull request #{number} is now at {str(head)[:12]}, not "
                f"{plan.head_sha[:12]}: not posted (the newer push gets its own review)"
            )
            print_notices([moved])
            return EXIT_CLEAN
        posted = publish(api, plan, args.event, args.max_comments)
    print_notices(posted.notices)
    write_step_summary(inputs.step_summary, plan)
    from cfglint.cli.review_cmd import describe

    print(f"cfglint review: {describe(posted)}.")
    return EXIT_CLEAN
