"""Why a fix could not be turned into edits, or the edits could not be applied."""

from __future__ import annotations


class FixNotApplicable(Exception):
    """A change cannot be placed in this file without guessing (one-line message)."""


class OverlappingEditsError(Exception):
    """Two edits touch the same text: applying both would merge them by accident."""
