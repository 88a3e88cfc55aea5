"""MMEngine's text placeholders, as it writes them: ``{{ fileDirname }}`` and friends,
``{{$ENV:default}}`` and ``{{_base_.x}}``.

MMEngine substitutes them in a config's text before it parses or runs it (see ``textsub.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV_PATTERN = re.compile(r"\{\{['\"]?\s*\$(\w+)\s*\:\s*(\S*?)\s*['\"]?\}\}")
BASE_VAR_PATTERN = re.compile(r"\{\{\s*_base_\.([\w\.]+)\s*\}\}")
PREDEFINED_NAMES = ("fileDirname", "fileBasename", "fileBasenameNoExtension", "fileExtname")
_PREDEFINED_PATTERN = re.compile(r"\{\{\s*(" + "|".join(PREDEFINED_NAMES) + r")\s*\}\}")


def env_pattern(name: str, default: str) -> re.Pattern[str]:
    """MMEngine's pattern for one ``{{$NAME:default}}``: the default keeps its regex meaning.

    Raises ``re.error`` where MMEngine fails on it.
    """
    return re.compile(r"\{\{['\"]?\s*\$" + name + r"\s*\:\s*" + default + r"\s*['\"]?\}\}")


def predefined_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"\{\{\s*" + name + r"\s*\}\}")


def base_var_pattern(dotted: str) -> re.Pattern[str]:
    """MMEngine's pattern for the ``{{_base_.x}}`` of one dotted key (``[\\w.]+``: valid)."""
    return re.compile(r"\{\{\s*_base_\." + dotted + r"\s*\}\}")


def has_placeholder(text: str) -> bool:
    """Whether MMEngine would substitute anything in ``text`` (source text, before parsing)."""
    return "{{" in text and any(
        pattern.search(text) for pattern in (ENV_PATTERN, _PREDEFINED_PATTERN, BASE_VAR_PATTERN)
    )


def predefined_values(path: Path) -> dict[str, str]:
    """What MMEngine puts in place of each predefined variable (backslashes made slashes)."""
    name = path.name
    values = {
        "fileDirname": os.path.dirname(str(path)),
        "fileBasename": name,
        "fileBasenameNoExtension": os.path.splitext(name)[0],
        "fileExtname": os.path.splitext(str(path))[1],
    }
    return {key: value.replace("\\", "/") for key, value in values.items()}
