"""MMEngine's placeholder substitution on a config's text, remembering where text came from.

Before it parses a config (or, for a ``.py`` file, runs it), MMEngine rewrites the file's text,
in this order: ``{{ fileDirname }}``-style predefined variables, ``{{$ENV:default}}`` (here always
the default: cfglint's results do not depend on the shell it runs in), and ``{{_base_.x}}``,
which becomes a quoted placeholder string that is swapped for the base value once the file is
loaded. cfglint reads a file's placeholders once (:func:`read_placeholders`, where MMEngine's
own failures on them are found) and applies them to a data file's whole text, or to each string
literal of a ``.py`` file it evaluates; a map from the rewritten text back to the original keeps
every value's exact place in the file the user wrote.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cfglint.codes import MMENGINE_REFUSES, UNREADABLE_CONFIG
from cfglint.loader.placeholders import (
    BASE_VAR_PATTERN,
    ENV_PATTERN,
    base_var_pattern,
    env_pattern,
    predefined_pattern,
    predefined_values,
)
from cfglint.loader.problems import fail
from cfglint.loader.source import LineIndex

MAX_PLACEHOLDERS = 1_000  # distinct placeholders in one file


@dataclass(frozen=True, slots=True)
class _Region:
    """A stretch of the new text that replaced ``orig_start:orig_end`` of the original."""

    start: int
    end: int
    orig_start: int
    orig_end: int
    env: bool


class MappedText:
    """A text being rewritten, with the original offsets of every stretch."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._regions: list[_Region] = []
        self._starts: list[int] = []

    def original_start(self, position: int) -> int:
        """The original offset of a span starting at ``position`` of the new text."""
        index = bisect.bisect_right(self._starts, position) - 1
        if index < 0:
            return position
        region = self._regions[index]
        if position < region.end:
            return region.orig_start
        return region.orig_end + position - region.end

    def original_end(self, position: int) -> int:
        """The original offset of a span ending (exclusive) at ``position`` of the new text."""
        index = bisect.bisect_left(self._starts, position) - 1
        if index < 0:
            return position
        region = self._regions[index]
        if position <= region.end:
            return region.orig_end
        return region.orig_end + position - region.end

    def env_dependent(self, start: int, end: int) -> bool:
        """Whether new-text ``start:end`` overlaps text an environment placeholder put there."""
        end = max(end, start + 1)
        index = bisect.bisect_left(self._starts, end) - 1  # the last region starting before end
        while index >= 0 and self._regions[index].end > start:
            if self._regions[index].env:
                return True
            index -= 1
        return False

    def substitute(
        self,
        pattern: re.Pattern[str],
        replacement: Callable[[re.Match[str]], str],
        env: bool = False,
    ) -> None:
        """Replace every match of ``pattern`` in one pass, as ``re.sub`` does."""
        changes = [
            (match.start(), match.end(), replacement(match))
            for match in pattern.finditer(self.text)
        ]
        if not changes:
            return
        old, old_index = self._regions, 0
        regions: list[_Region] = []
        pieces: list[str] = []
        shift = cursor = 0
        for start, end, new in changes:
            while old_index < len(old) and old[old_index].end <= start:
                regions.append(_shifted(old[old_index], shift))
                old_index += 1
            touches_env = env
            while old_index < len(old) and old[old_index].start < end:
                touches_env = touches_env or old[old_index].env  # absorbed into this change
                old_index += 1
            regions.append(
                _Region(
                    start + shift,
                    start + shift + len(new),
                    self.original_start(start),
                    self.original_end(end),
                    touches_env,
                )
            )
            pieces.append(self.text[cursor:start])
            pieces.append(new)
            cursor = end
            shift += len(new) - (end - start)
        regions.extend(_shifted(region, shift) for region in old[old_index:])
        pieces.append(self.text[cursor:])
        self.text = "".join(pieces)
        self._regions = regions
        self._starts = [region.start for region in regions]


def _shifted(region: _Region, shift: int) -> _Region:
    if not shift:
        return region
    return _Region(
        region.start + shift, region.end + shift, region.orig_start, region.orig_end, region.env
    )


@dataclass(frozen=True, slots=True)
class EnvPlaceholder:
    """One ``{{$NAME:default}}`` of a file: MMEngine's pattern for it, and what replaces it."""

    pattern: re.Pattern[str]
    value: str  # a replacement template (backslash escapes, group references); never empty


@dataclass(frozen=True, slots=True)
class FilePlaceholders:
    """A file's placeholders as MMEngine fills them in; applying them cannot fail."""

    predefined: tuple[tuple[re.Pattern[str], str], ...]
    environment: tuple[EnvPlaceholder, ...]

    def substitute(self, mapped: MappedText) -> None:
        """Predefined variables, then environment placeholders, in MMEngine's order."""
        for pattern, value in self.predefined:
            mapped.substitute(pattern, _literal(value))
        for placeholder in self.environment:
            mapped.substitute(placeholder.pattern, _template(placeholder.value), env=True)


# A file without `{{`, or a lazy-import config (MMEngine's lazy path substitutes nothing).
NO_PLACEHOLDERS = FilePlaceholders((), ())


def read_placeholders(path: Path, text: str, environ: Mapping[str, str]) -> FilePlaceholders:
    """The file's placeholders, or MMEngine's failure on one of them (CL905, at the placeholder).

    MMEngine substitutes the whole text, comments included: the predefined variables, then each
    ``{{$NAME:default}}`` in the order they appear. It stops on one whose variable is unset (or
    empty) and whose default is empty, and on one whose default is not a valid regular
    expression or whose value is not a valid replacement template.
    """
    if "{{" not in text:
        return NO_PLACEHOLDERS
    predefined = tuple(
        (predefined_pattern(name), value) for name, value in predefined_values(path).items()
    )
    mapped = MappedText(text)  # what MMEngine searches for environment placeholders
    for pattern, value in predefined:
        mapped.substitute(pattern, _literal(value))
    found: dict[tuple[str, str], int] = {}
    for match in ENV_PATTERN.finditer(mapped.text):
        found.setdefault((match.group(1), match.group(2)), match.start())
    if len(found) > MAX_PLACEHOLDERS:
        message = f"too many environment placeholders to resolve (over {MAX_PLACEHOLDERS:,})"
        raise fail(UNREADABLE_CONFIG, message, path)
    lines = LineIndex(text)
    environment: list[EnvPlaceholder] = []
    for (name, default), offset in found.items():
        line, column = lines.position(mapped.original_start(offset))
        value = environ.get(name, default)
        if not value:
            raise fail(
                MMENGINE_REFUSES,
                f"`{{{{${name}:}}}}` has no default: MMEngine stops when `{name}` is unset or "
                "empty (it substitutes placeholders everywhere in the text, comments too; "
                "cfglint resolves them to their defaults)",
                path,
                line,
                column,
            )
        try:
            pattern = env_pattern(name, default)
            # `re.sub` reads its replacement as a template before it searches: MMEngine fails
            # on a bad one (`C:\data`) even where the pattern matches nothing.
            pattern.sub(value, "")
        except re.error as error:
            raise fail(
                MMENGINE_REFUSES,
                f"`{{{{${name}:{default}}}}}`: MMEngine fails on it ({error})",
                path,
                line,
                column,
            ) from None
        environment.append(EnvPlaceholder(pattern, value))
    return FilePlaceholders(predefined, tuple(environment))


def substitute_text(text: str, placeholders: FilePlaceholders) -> MappedText:
    """``text`` (a string literal's source) with the file's placeholders filled in."""
    mapped = MappedText(text)
    if "{{" in text:
        placeholders.substitute(mapped)
    return mapped


@dataclass(frozen=True, slots=True)
class FileText:
    """A data file's text as MMEngine parses it, and what its ``{{_base_.x}}`` became."""

    mapped: MappedText
    base_tokens: dict[str, str]  # the quoted placeholder string -> the dotted base key


def substitute_file_text(path: Path, text: str, placeholders: FilePlaceholders) -> FileText:
    """MMEngine's three substitutions, in its order, on a data file's whole text."""
    mapped = substitute_text(text, placeholders)
    if "{{" not in mapped.text:
        return FileText(mapped, {})
    return FileText(mapped, _substitute_base_vars(path, mapped))


def _substitute_base_vars(path: Path, mapped: MappedText) -> dict[str, str]:
    tokens: dict[str, str] = {}
    names = sorted(set(BASE_VAR_PATTERN.findall(mapped.text)))
    if len(names) > MAX_PLACEHOLDERS:
        message = f"too many `{{{{_base_.x}}}}` placeholders to resolve (over {MAX_PLACEHOLDERS:,})"
        raise fail(UNREADABLE_CONFIG, message, path)
    for number, dotted in enumerate(names):
        token = f"_{dotted}_{number:06x}"
        while token in mapped.text:
            token += "_"
        tokens[token] = dotted
        mapped.substitute(base_var_pattern(dotted), _literal(f'"{token}"'))
    return tokens


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    def replace(_match: re.Match[str]) -> str:
        return text

    return replace


def _template(template: str) -> Callable[[re.Match[str]], str]:
    """A replacement string as ``re.sub`` reads it (backslash escapes and group references)."""

    def replace(match: re.Match[str]) -> str:
        return match.expand(template)

    return replace
