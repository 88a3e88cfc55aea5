"""MMEngine's text placeholders: ``{{ fileDirname }}`` and friends, and ``{{$ENV:default}}``.

MMEngine substitutes them in the file's text before running it; cfglint applies the same
patterns to the string literals (and bare ``{{'$X:1'}}`` forms) it evaluates.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cfglint.loader.problems import fail

ENV_PATTERN = re.compile(r"\{\{['\"]?\s*\$(\w+)\s*\:\s*(\S*?)\s*['\"]?\}\}")
_PREDEFINED_PATTERN = re.compile(
    r"\{\{\s*(fileDirname|fileBasename|fileBasenameNoExtension|fileExtname)\s*\}\}"
)


class MissingEnvError(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass(frozen=True, slots=True)
class Substituted:
    text: str
    env_dependent: bool


_BASE_VAR_PATTERN = re.compile(r"\{\{\s*_base_\.([\w\.]+)\s*\}\}")


def has_placeholder(text: str) -> bool:
    """Whether MMEngine would substitute anything in ``text`` (source text, before parsing)."""
    return "{{" in text and any(
        pattern.search(text) for pattern in (ENV_PATTERN, _PREDEFINED_PATTERN, _BASE_VAR_PATTERN)
    )


def first_missing_env(text: str, environ: Mapping[str, str]) -> tuple[str, int] | None:
    """The first ``{{$X:}}`` in the text (comments included) that MMEngine cannot fill in.

    MMEngine substitutes the whole file text before running it, and stops with a KeyError on a
    variable that is unset (or empty) and has no default: the name and its character offset.
    """
    if "{{" not in text:
        return None
    for match in ENV_PATTERN.finditer(text):
        if not environ.get(match.group(1), match.group(2)):
            return match.group(1), match.start()
    return None


def check_environment(path: Path, text: str, environ: Mapping[str, str]) -> None:
    """Raise MMEngine's failure (CL905, at the placeholder) for a `{{$X:}}` it cannot fill in."""
    missing = first_missing_env(text, environ)
    if missing is None:
        return
    name, offset = missing
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    raise fail(
        "CL905",
        f"environment variable `{name}` is not set and `{{{{${name}:...}}}}` gives no "
        "default (MMEngine substitutes placeholders everywhere in the text, comments too)",
        path,
        line,
        column,
    )


def predefined_values(path: Path) -> dict[str, str]:
    name = path.name
    return {
        "fileDirname": os.path.dirname(str(path)).replace("\\", "/"),
        "fileBasename": name,
        "fileBasenameNoExtension": os.path.splitext(name)[0],
        "fileExtname": os.path.splitext(str(path))[1],
    }


def substitute(text: str, predefined: Mapping[str, str], environ: Mapping[str, str]) -> Substituted:
    """``text`` with placeholders replaced; raises MissingEnvError like MMEngine's KeyError."""
    if "{{" not in text:
        return Substituted(text, False)
    text = _PREDEFINED_PATTERN.sub(lambda match: predefined[match.group(1)], text)
    env_dependent = False

    def env_value(match: re.Match[str]) -> str:
        nonlocal env_dependent
        name, default = match.group(1), match.group(2)
        env_dependent = True
        value = environ.get(name, default)
        if not value:
            raise MissingEnvError(name)
        return value

    text = ENV_PATTERN.sub(env_value, text)
    return Substituted(text, env_dependent)
