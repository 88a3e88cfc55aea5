"""The one error type a user may see. Anything else escaping the CLI is an internal error."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input or settings: printed as one line, exit code 2."""
