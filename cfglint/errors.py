"""The one error type a user may see. Anything else escaping the CLI is an internal error."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input or settings: printed as one line, exit code 2."""


class NoTargetError(UserError):
    """A config with no target: a run reports all of them in one line."""

    def __init__(self, config: object, help_text: str) -> None:
        super().__init__(f"{config}: {help_text}")
        self.config = config
        self.help_text = help_text
