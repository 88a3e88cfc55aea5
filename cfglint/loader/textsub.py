"""MMEngine's placeholder substitution on a whole file's text, remembering where text came from.

Before it parses a ``.yaml``/``.yml``/``.json`` config, MMEngine rewrites the file's text, in
this order: ``{{ fileDirname }}``-style predefined variables, ``{{$ENV:default}}`` (here always
the default: cfglint's results do not depend on the shell it runs in), and ``{{_base_.x}}``,
which becomes a quoted placeholder string that is swapped for the base value once the file is
loaded. cfglint does the same, and keeps a map from the rewritten text back to the original so
that every value still gets its exact place in the file the user wrote.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cfglint.loader.placeholders import ENV_PATTERN, MissingEnvError

_PREDEFINED = ("fileDirname", "fileBasename", "fileBasenameNoExtension", "fileExtname")
_BASE_FIND = re.compile(r"\{\{\s*_base_\.([\w\.]+)\s*\}\}")
MAX_PLACEHOLDERS = 1_000  # distinct placeholders in one file


class PlaceholderError(Exception):
    """MMEngine itself fails on the text (a bad default that is not a regular expression...)."""


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
class FileText:
    """A data file's text as MMEngine parses it, and what its ``{{_base_.x}}`` became."""

    mapped: MappedText
    base_tokens: dict[str, str]  # the quoted placeholder string -> the dotted base key


def substitute_file_text(
    text: str, predefined: Mapping[str, str], environ: Mapping[str, str]
) -> FileText:
    """MMEngine's three substitutions, in its order, on the whole text."""
    mapped = MappedText(text)
    if "{{" not in text:
        return FileText(mapped, {})
    for key in _PREDEFINED:
        pattern = re.compile(r"\{\{\s*" + key + r"\s*\}\}")
        mapped.substitute(pattern, _literal(predefined[key].replace("\\", "/")))
    _substitute_environment(mapped, environ)
    return FileText(mapped, _substitute_base_vars(mapped))


def _substitute_environment(mapped: MappedText, environ: Mapping[str, str]) -> None:
    pairs = list(dict.fromkeys(ENV_PATTERN.findall(mapped.text)))
    if len(pairs) > MAX_PLACEHOLDERS:
        raise PlaceholderError(f"more than {MAX_PLACEHOLDERS} environment placeholders")
    for name, default in pairs:
        value = environ.get(name, default)
        if not value:
            raise MissingEnvError(name)
        try:
            # MMEngine builds this pattern from the default as written, and uses the value as
            # a replacement template: both keep their regular-expression meaning.
            pattern = re.compile(
                r"\{\{['\"]?\s*\$" + name + r"\s*\:\s*" + default + r"\s*['\"]?\}\}"
            )
            for match in pattern.finditer(mapped.text):
                match.expand(value)
        except re.error as error:
            raise PlaceholderError(
                f"`{{{{${name}:{default}}}}}`: MMEngine fails on it ({error})"
            ) from None
        mapped.substitute(pattern, _template(value), env=True)


def _substitute_base_vars(mapped: MappedText) -> dict[str, str]:
    tokens: dict[str, str] = {}
    names = sorted(set(_BASE_FIND.findall(mapped.text)))
    if len(names) > MAX_PLACEHOLDERS:
        raise PlaceholderError(f"more than {MAX_PLACEHOLDERS} `{{{{_base_.x}}}}` placeholders")
    for number, dotted in enumerate(names):
        token = f"_{dotted}_{number:06x}"
        while token in mapped.text:
            token += "_"
        tokens[token] = dotted
        try:
            pattern = re.compile(r"\{\{\s*_base_\." + dotted + r"\s*\}\}")
        except re.error as error:  # pragma: no cover - `[\w.]+` is always a valid pattern
            raise PlaceholderError(str(error)) from None
        mapped.substitute(pattern, _literal(f'"{token}"'))
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
