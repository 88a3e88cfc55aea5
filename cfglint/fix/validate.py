"""Does an edited file still parse? (A fix that breaks a file is reverted, not written.)"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from cfglint.fix.text import split_bom


def check_still_valid(path: Path, new_source: str) -> str | None:
    """None when ``new_source`` parses as the file's kind (by suffix), else a one-line reason."""
    _bom, text = split_bom(new_source)
    suffix = path.suffix.lower()
    if suffix == ".py":
        try:
            ast.parse(text, filename=str(path))
        except SyntaxError as error:
            return f"line {error.lineno}: {error.msg}"
        except ValueError as error:  # a NUL byte
            return str(error)
        return None
    if suffix in (".yaml", ".yml"):
        from cfglint.fix.yaml_load import yaml_error

        return yaml_error(text)
    if suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            return f"line {error.lineno}: {error.msg}"
    return None
