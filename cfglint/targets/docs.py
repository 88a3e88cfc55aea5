"""docs/targets/: one page per shipped target, rendered from its file alone.

`python -m cfglint.targets.docs docs/targets` rewrites the pages; a test keeps them in sync.
The page quotes the file's leading comment, where the target's facts are cited.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cfglint import files
from cfglint.targets.describe import check_lines, every_target_codes, host_lines
from cfglint.targets.load import Target
from cfglint.targets.registry import TargetRegistry


def _evidence(path: Path) -> str:
    """The file's leading comment block, as written (the facts and their sources)."""
    lines = []
    for line in files.read_text_capped(path, translate_newlines=True).splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].removeprefix(" "))
    return "\n".join(lines).strip()


def _example(config: str, codes: tuple[str, ...] = ()) -> str:
    block = f"```python\n{config.rstrip()}\n```\n"
    return block + (f"\nReported: {', '.join(codes)}\n" if codes else "")


def render_target(target: Target) -> str:
    variant = target.with_vendor_import
    vendor = target.host.vendor_import
    parts = [
        f"# Target `{target.name}`\n",
        f"{target.description}. Device `{target.device}`; defined in "
        f"`schemas/{target.sources[0].name}`.\n",
        "## On its host\n\n" + "\n".join(f"- {line}" for line in host_lines(target)) + "\n",
        "## Checks\n\n"
        + "\n".join(f"- {line}" for line in check_lines(target))
        + f"\n- on every target: {', '.join(every_target_codes())}\n",
    ]
    if variant is not None and vendor is not None:
        parts.append(
            f"With `{vendor.modules[0]}` imported before mmengine:\n\n"
            + "\n".join(f"- {line}" for line in check_lines(variant))
            + "\n"
        )
    evidence = _evidence(target.sources[0])
    if evidence:
        parts.append("## Evidence\n\nFrom the target file:\n\n```text\n" + evidence + "\n```\n")
    examples = target.examples
    if examples.invalid:
        parts.append(
            "## Flagged\n\n"
            + "\n".join(_example(case.config, case.codes) for case in examples.invalid)
        )
    if examples.valid:
        parts.append("## Not flagged\n\n" + "\n".join(_example(text) for text in examples.valid))
    return "\n".join(parts)


def render_index(registry: TargetRegistry) -> str:
    lines = [
        "# Targets\n",
        "A target is one YAML file under `schemas/` (or a project's `extra-targets`).\n",
        "| target | device | MMEngine resolves on its host | description |",
        "|---|---|---|---|",
    ]
    for name in registry.names():
        target = registry.get(name)
        lines.append(
            f"| [{name}]({name}.md) | `{target.device}` | `{target.host.mmengine_device}` | "
            f"{target.description} |"
        )
    return "\n".join(lines) + "\n"


def target_pages(registry: TargetRegistry) -> dict[str, str]:
    pages = {f"{name}.md": render_target(registry.get(name)) for name in registry.names()}
    pages["index.md"] = render_index(registry)
    return pages


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Path("docs/targets")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in target_pages(TargetRegistry()).items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
