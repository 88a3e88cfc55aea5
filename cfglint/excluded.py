"""Names excluded from every walk whatever the settings say (tool state, virtual environments,
build output). Its own module so that the result cache can walk the same way without importing
the settings' validation."""

from __future__ import annotations

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
    "work_dirs",
    ".cfglint_cache",
)
