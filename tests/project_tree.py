"""Small config projects written on disk for CLI tests, and what changed in them."""

from __future__ import annotations

from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text, written byte for byte) under ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (links followed) by its POSIX relative path; cfglint's result
    cache (`.cfglint_cache/`, ignored by git through its own .gitignore) left out."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not {"__pycache__", ".cfglint_cache"} & set(path.parts)
    }


def changed_files(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(name for name in after if before.get(name) != after[name])
