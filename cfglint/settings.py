"""Project settings: `[tool.cfglint]` in the nearest pyproject.toml, or a cfglint.toml."""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from cfglint import directives, files, globs, strict_model
from cfglint.errors import NoTargetError, UserError
from cfglint.excluded import DEFAULT_EXCLUDE
from cfglint.loader.source import CONFIG_SUFFIXES
from cfglint.paths import absolute_path
from cfglint.session import per_session
from cfglint.strict_model import ReadError

FixPlacement = Literal["auto", "origin", "leaf"]


# Folders that hold installed code, never the project's own configs.
INSTALLED_FOLDERS = frozenset({"site-packages", "dist-packages"})


def installed_code(folders: Iterable[str]) -> bool:
    """Whether a path with these folders is installed code (a `pkg::` base), never edited."""
    return any(name in INSTALLED_FOLDERS for name in folders)


def default_excluded(names: Iterable[str]) -> bool:
    """Whether one of these file or folder names is excluded whatever the settings say (tool
    state, virtual environments, build output)."""
    return any(name in DEFAULT_EXCLUDE for name in names)


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsTable:
    """The `[tool.cfglint]` table as written by the user (read by `cfglint.strict_model`)."""

    default_target: str | None = None
    targets: dict[str, str] = field(default_factory=dict)
    # None: every config suffix, and a folder walk keeps the files that look like configs
    # (cfglint/config_sniff.py); given: exactly the files these globs match.
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extra_targets: tuple[str, ...] = ()
    fix_placement: FixPlacement = "auto"
    # Entry scripts the configs are launched by, each with its arguments after the config
    # (`tools/train.py --launcher pytorch`): every config is checked as each one launches it.
    entry_points: tuple[str, ...] = ()

    def after_read(self) -> None:
        for option, selectors in (("select", self.select or ()), ("ignore", self.ignore)):
            for index, selector in enumerate(selectors):
                if not _known_selector(selector):
                    raise ReadError(
                        f"unknown rule selector `{selector}` "
                        "(a code, a prefix such as CL2, or ALL)",
                        (option, index),
                    )


def _known_selector(text: str) -> bool:
    # Imported here, and only when a selector is given: the rule catalogue is a later step of
    # the pipeline than settings.
    from cfglint.rules import is_selector

    return is_selector(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Settings plus where they came from: globs and paths are relative to `root`."""

    root: Path
    source: Path | None
    table: SettingsTable

    @property
    def extra_targets(self) -> tuple[Path, ...]:
        return tuple(self.root / path for path in self.table.extra_targets)

    def relative(self, path: Path | str) -> PurePosixPath | None:
        try:
            return PurePosixPath(Path(os.path.abspath(path)).relative_to(self.root).as_posix())
        except ValueError:
            return None

    def is_excluded(self, path: Path | str) -> bool:
        # Asked for every file and folder a walk meets: strings, not pathlib, on the way.
        absolute = absolute_path(path)
        root = str(self.root)
        if not absolute.startswith(root) or absolute[len(root) : len(root) + 1] not in ("/", ""):
            relative = self.relative(path)  # another spelling of the root, or outside it
            if relative is None:
                # Outside the root only the default exclusions hold (a run without settings
                # walking a git work tree above the current folder must not enter `.git`).
                return default_excluded(Path(absolute).parts)
            text = relative.as_posix()
        else:
            text = absolute[len(root) + 1 :].replace(os.sep, "/") or "."
        patterns = (*DEFAULT_EXCLUDE, *self.table.exclude, *self.table.extend_exclude)
        return globs.matches_any(patterns, text)

    def is_included(self, path: Path) -> bool:
        if self.table.include is None:
            return path.suffix.lower() in CONFIG_SUFFIXES
        return any(
            globs.matches(pattern, PurePosixPath(path.name)) for pattern in self.table.include
        )

    def glob_pattern(self, path: Path) -> str | None:
        """The most specific `targets` glob matching `path` (the later one on a tie)."""
        if not self.table.targets:  # most projects: asked once per config, for nothing
            return None
        relative = self.relative(path)
        if relative is None:
            return None
        best: tuple[tuple[int, int], str] | None = None
        for pattern in self.table.targets:
            if globs.matches(pattern, relative):
                rank = globs.specificity(pattern)
                if best is None or rank >= best[0]:
                    best = (rank, pattern)
        return best[1] if best is not None else None


def _read_table(path: Path) -> dict[str, object] | None:
    try:
        data = files.read_bytes_capped(path)
    except files.UnreadableFileError as error:
        raise UserError(f"{path}: cannot read settings: {error.reason}") from error
    try:
        text = data.decode("utf-8")  # TOML is UTF-8, comments included
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UserError(
            f"{path}:{line}: cannot read settings: not UTF-8 text "
            f"(byte 0x{data[error.start]:02x}); TOML files must be UTF-8"
        ) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"{path}: invalid TOML: {error}") from error
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise UserError(f"{path}: invalid TOML: nested too deeply to read") from None
    tool = document.get("tool", {})
    table = tool.get("cfglint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        # `[tool]` with `cfglint = 3` is a mistake, not "no settings here".
        raise UserError(f"{path}: [tool.cfglint] must be a table, not {type(table).__name__}")
    if path.name == "pyproject.toml":
        return table
    return table if table is not None else document


def parse_settings(path: Path, table: dict[str, object]) -> Settings:
    try:
        parsed = strict_model.read(SettingsTable, table)
    except ReadError as error:
        raise UserError(f"{path}: [tool.cfglint] {error}") from error
    return Settings(root=path.parent, source=path, table=parsed)


@per_session
def _settings_in(directory: Path) -> Settings | None:
    for name in ("cfglint.toml", "pyproject.toml"):
        candidate = directory / name
        if _settings_file_here(candidate):
            table = _read_table(candidate)
            if table is not None:
                return parse_settings(candidate, table)
    return None


def _settings_file_here(candidate: Path) -> bool:
    """Whether a settings file is there to be read: a file (a FIFO or device is an error, read
    never), not a folder of that name, nothing missing, nothing in a folder that cannot be
    searched (its configs cannot be read either, and are reported themselves)."""
    try:
        mode = os.stat(candidate).st_mode
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return False
    except OSError as error:
        raise UserError(f"{candidate}: cannot read settings: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        return False
    if not stat.S_ISREG(mode):
        raise UserError(
            f"{candidate}: cannot read settings: not a regular file (a FIFO, socket or device)"
        )
    return True


def settings_for(path: Path | str | None) -> Settings:
    """The settings that govern `path` (a file or folder): the nearest ones upwards."""
    cwd = os.getcwd()
    return _settings_for(os.path.abspath(path if path is not None else cwd), cwd)


def settings_for_file(path: Path) -> Settings:
    """`settings_for` a path known to be a file (a config that was read): its folder's, with
    no stat of the file itself (a check asks for each of thousands of configs, several times)."""
    return settings_for(os.path.dirname(path) or ".")


# A check asks once per config and again per finding (8,000 times on the corpus): the answer
# is remembered per path, and per folder on the way up, so that the configs of one folder cost
# a stat each (is it a folder?) and the walk up is done once per folder.
@per_session
def _settings_for(absolute: str, cwd: str) -> Settings:
    folder = absolute if files.is_dir(absolute) else os.path.dirname(absolute)
    return _settings_in_or_above(folder, cwd)


@per_session
def _settings_in_or_above(folder: str, cwd: str) -> Settings:
    found = _settings_in(Path(folder))
    if found is not None:
        return found
    parent = os.path.dirname(folder)
    if parent == folder:
        return Settings(root=Path(cwd), source=None, table=SettingsTable())
    return _settings_in_or_above(parent, cwd)


HOW_TO_SET_A_TARGET = (
    "pass --target NAME, add `# cfglint: target=NAME` to the config, or set `default-target` "
    "(or a `targets` glob) under [tool.cfglint] in pyproject.toml; `cfglint targets` lists "
    "the names"
)
NO_TARGET_HELP = f"no target for this config: {HOW_TO_SET_A_TARGET}"


@dataclass(frozen=True, slots=True)
class TargetChoice:
    """A config's target name and where it was given, for error messages about the name."""

    name: str
    # `--target`, `path:line` of a `# cfglint: target=` comment, or the settings entry.
    source: str


def target_choice(config: Path, cli_target: str | None, text: str | None = None) -> TargetChoice:
    """Command line beats the config's own comment, which beats the glob table and default."""
    if cli_target is not None:
        return TargetChoice(cli_target, "--target")
    if text is None:
        try:
            text = files.read_text_capped(config, errors="replace", translate_newlines=True)
        except OSError:
            text = ""
    named = directives.target_comment(text, python=config.suffix == ".py")
    if named is not None:
        name, line = named
        return TargetChoice(name, f"{config}:{line}: `# cfglint: target={name}`")
    settings = settings_for_file(config)
    pattern = settings.glob_pattern(config)
    if pattern is not None:
        name = settings.table.targets[pattern]
        return TargetChoice(name, f"{settings.source}: [tool.cfglint.targets] {pattern!r}")
    if settings.table.default_target is not None:
        return TargetChoice(
            settings.table.default_target, f"{settings.source}: [tool.cfglint] default-target"
        )
    raise NoTargetError(config, NO_TARGET_HELP)


def target_name_for(config: Path, cli_target: str | None, text: str | None = None) -> str:
    return target_choice(config, cli_target, text).name


def declared_choice(config: Path) -> TargetChoice | None:
    """The target a config declares itself (its comment, the settings), without `--target`;
    None when it declares none, or its settings cannot be read (the check reports those)."""
    try:
        return target_choice(config, None)
    except UserError:
        return None


def declared_target(config: Path) -> str | None:
    choice = declared_choice(config)
    return None if choice is None else choice.name
