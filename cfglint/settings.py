"""Project settings: `[tool.cfglint]` in the nearest pyproject.toml, or a cfglint.toml."""

from __future__ import annotations

import functools
import os
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

import tomllib
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cfglint import directives, globs
from cfglint.errors import UserError

FixPlacement = Literal["auto", "origin", "leaf"]

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


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class SettingsTable(BaseModel):
    """The `[tool.cfglint]` table as written by the user."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, alias_generator=_kebab
    )

    default_target: str | None = None
    targets: dict[str, str] = Field(default_factory=dict)
    include: tuple[str, ...] = ("*.py",)
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    select: tuple[Annotated[str, Field(pattern=r"^CL[0-9]*$|^ALL$")], ...] | None = None
    ignore: tuple[Annotated[str, Field(pattern=r"^CL[0-9]*$")], ...] = ()
    extra_targets: tuple[str, ...] = ()
    fix_placement: FixPlacement = "auto"


class Settings(BaseModel):
    """Settings plus where they came from: globs and paths are relative to `root`."""

    model_config = ConfigDict(frozen=True)

    root: Path
    source: Path | None
    table: SettingsTable

    @property
    def extra_targets(self) -> tuple[Path, ...]:
        return tuple(self.root / path for path in self.table.extra_targets)

    def relative(self, path: Path) -> PurePosixPath | None:
        try:
            return PurePosixPath(Path(os.path.abspath(path)).relative_to(self.root).as_posix())
        except ValueError:
            return None

    def is_excluded(self, path: Path) -> bool:
        relative = self.relative(path)
        if relative is None:
            return False
        patterns = (*DEFAULT_EXCLUDE, *self.table.exclude, *self.table.extend_exclude)
        return any(globs.matches(pattern, relative) for pattern in patterns)

    def is_included(self, path: Path) -> bool:
        return any(
            globs.matches(pattern, PurePosixPath(path.name)) for pattern in self.table.include
        )

    def glob_target(self, path: Path) -> str | None:
        relative = self.relative(path)
        if relative is None:
            return None
        best: tuple[tuple[int, int], str] | None = None
        for pattern, target in self.table.targets.items():
            if globs.matches(pattern, relative):
                rank = globs.specificity(pattern)
                if best is None or rank >= best[0]:
                    best = (rank, target)
        return best[1] if best is not None else None


def _read_table(path: Path) -> dict[str, object] | None:
    try:
        with path.open("rb") as stream:
            document = tomllib.load(stream)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{path}: invalid TOML: {error}") from error
    except OSError as error:
        raise UserError(f"{path}: cannot read settings: {error}") from error
    if path.name == "pyproject.toml":
        tool = document.get("tool", {})
        table = tool.get("cfglint") if isinstance(tool, dict) else None
        return table if isinstance(table, dict) else None
    nested = document.get("tool", {})
    if isinstance(nested, dict) and isinstance(nested.get("cfglint"), dict):
        return dict(nested["cfglint"])
    return document


def parse_settings(path: Path, table: dict[str, object]) -> Settings:
    try:
        parsed = SettingsTable.model_validate(table)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UserError(f"{path}: [tool.cfglint] {where}: {first['msg']}") from error
    return Settings(root=path.parent, source=path, table=parsed)


@functools.lru_cache(maxsize=1024)
def _settings_in(directory: Path) -> Settings | None:
    for name in ("cfglint.toml", "pyproject.toml"):
        candidate = directory / name
        if candidate.is_file():
            table = _read_table(candidate)
            if table is not None:
                return parse_settings(candidate, table)
    return None


def settings_for(path: Path | None) -> Settings:
    """The settings that govern `path` (a file or folder): the nearest ones upwards."""
    start = Path(os.path.abspath(path if path is not None else Path.cwd()))
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        found = _settings_in(folder)
        if found is not None:
            return found
    return Settings(root=Path.cwd(), source=None, table=SettingsTable())


NO_TARGET_HELP = (
    "no target for this config: pass --target NAME, add `# cfglint: target=NAME` to the "
    "config, or set `default-target` (or a `targets` glob) under [tool.cfglint] in "
    "pyproject.toml; `cfglint targets` lists the names"
)


def target_name_for(config: Path, cli_target: str | None, text: str | None = None) -> str:
    """Command line beats the config's own comment, which beats the glob table and default."""
    if cli_target is not None:
        return cli_target
    if text is None:
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
    named = directives.target_comment(text)
    if named is not None:
        return named
    settings = settings_for(config)
    found = settings.glob_target(config) or settings.table.default_target
    if found is None:
        raise UserError(f"{config}: {NO_TARGET_HELP}")
    return found
