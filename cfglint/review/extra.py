"""Posting needs the `review` extra (httpx); say so in one line instead of a traceback."""

from __future__ import annotations

import importlib.util

from cfglint.errors import UserError

INSTALL_HINT = "pip install 'cfglint[review]'"


def require_http_client() -> None:
    """The dry run needs nothing beyond the light core; posting needs httpx."""
    try:
        found = importlib.util.find_spec("httpx") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UserError(f"posting a review needs httpx, which is not installed: {INSTALL_HINT}")
