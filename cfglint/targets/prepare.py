"""`python -m cfglint.targets.prepare [FOLDER]`: write the shipped targets' parsed data
(`schemas/prepared.json`, read by cfglint/targets/prepared.py) after a target file changed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cfglint import files
from cfglint.fix.atomic import write_report
from cfglint.targets.load import parse_fast
from cfglint.targets.prepared import FILE_NAME, FORMAT
from cfglint.targets.registry import shipped_targets_dir


def prepared_text(folder: Path) -> str:
    """What `schemas/prepared.json` should hold for the YAML files of `folder`."""
    entries: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.yaml")):
        text = files.read_text_capped(path, translate_newlines=True)
        data = parse_fast(path, text)
        if json.loads(json.dumps(data)) != data:
            raise ValueError(f"{path}: holds data JSON cannot carry (a non-string key, a date)")
        entries[path.name] = {"text": text, "data": data}
    return json.dumps({"format": FORMAT, "files": entries}, indent=1) + "\n"


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else shipped_targets_dir()
    write_report(folder / FILE_NAME, prepared_text(folder))
    print(f"wrote {folder / FILE_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
