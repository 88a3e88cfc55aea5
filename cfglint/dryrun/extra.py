"""The dry run needs the `dryrun` extra; say so in one line instead of a traceback."""

from __future__ import annotations

import importlib.util

from cfglint.errors import UserError

REQUIRED = ("torch", "mmengine")
INSTALL_HINT = "pip install 'cfglint[dryrun]'"


def missing_modules() -> tuple[str, ...]:
    """Found without importing them: the parent process never loads torch."""
    missing = []
    for name in REQUIRED:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return tuple(missing)


def require_extra() -> None:
    missing = missing_modules()
    if missing:
        raise UserError(
            f"the dry run needs {' and '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed: {INSTALL_HINT}"
        )
