"""`cfglint review`: the pull-request review bot (docs/integrations.md, "Review bot").

One step per module: `event` (inputs from GitHub Actions or flags) -> `diff` (what the pull
request changed, from real `git diff`) -> `collect` (the check on the changed configs and the
configs inheriting them) -> `findings` + `comments` (where each finding goes: an inline comment
with a suggestion, or the review body) -> `document` (the review JSON) -> `reconcile` (against the
bot's own earlier comments) -> `publish` (the GitHub REST API, `github_api`) or `fallback`
(annotations and the job summary when the token cannot write).

Nothing from the checkout is ever executed: configs are read by the static loader, git is run
without external diff drivers or text conversion.
"""
