"""`--add-noqa`: a `# cfglint: noqa: CODE` comment on each line that has findings.

A comment is appended at the end of the line (after any comment already there), or its codes are
added to a `# cfglint: noqa: ...` the line already has. A line that cannot take a comment without
changing the file's meaning is left alone: a Python line that ends inside a string or a
backslash continuation, a YAML line that is part of a block scalar; JSON has no comments at all.
Every edit is checked: the file must still mean the same (the same AST, the same YAML data) and
cfglint must read the noqa back on that line.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from cfglint import directives
from cfglint.fix.text import split_bom

DIRECTIVE = "# cfglint: noqa: {codes}"
# The code list of a `# cfglint: noqa: CODES` comment, to extend it.
_CODE_LIST = re.compile(
    r"(?P<head>#\s*cfglint\s*:\s*noqa\s*:\s*)(?P<codes>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)",
    re.IGNORECASE,
)
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class NoqaEdit:
    text: str  # the new text (the old one when nothing was added)
    added: tuple[int, ...]  # the lines that got a directive (or more codes in theirs)
    refused: tuple[int, ...]  # the lines that cannot take a comment


def add_noqa(text: str, codes_by_line: Mapping[int, Collection[str]], *, kind: str) -> NoqaEdit:
    """``kind``: "python" or "yaml" (JSON has no comments: the caller says so instead)."""
    python = kind == "python"
    bom, body = split_bom(text)
    lines = body.splitlines(keepends=True)
    open_lines = _python_comment_lines(body) if python else None
    added: list[int] = []
    refused: list[int] = []
    for number in sorted(codes_by_line):
        if not 1 <= number <= len(lines) or (open_lines is not None and number not in open_lines):
            refused.append(number)
            continue
        candidate = lines.copy()
        candidate[number - 1] = _with_codes(lines[number - 1], codes_by_line[number], python)
        joined = "".join(candidate)
        if _same_meaning(body, joined, python) and _read_back(
            joined, number, codes_by_line[number], python
        ):
            lines = candidate
            added.append(number)
        else:
            refused.append(number)
    return NoqaEdit(bom + "".join(lines), tuple(added), tuple(refused))


def _with_codes(line: str, codes: Collection[str], python: bool) -> str:
    ending = _LINE_END.search(line)
    content, end = (line[: ending.start()], line[ending.start() :]) if ending else (line, "")
    wanted = sorted({code.upper() for code in codes})
    existing = _existing_list(content, python)
    if existing is not None:
        start, stop, present = existing
        merged = [*present, *(code for code in wanted if code not in present)]
        return content[:start] + ", ".join(merged) + content[stop:] + end
    return content.rstrip() + "  " + DIRECTIVE.format(codes=", ".join(wanted)) + end


def _existing_list(content: str, python: bool) -> tuple[int, int, list[str]] | None:
    """Where the codes of the line's `# cfglint: noqa: ...` are, and which they are."""
    for _line, comment in directives.comments(content, python=python):
        offset = content.rindex(comment)
        found = _CODE_LIST.search(comment)
        if found is not None:
            codes = [code.strip().upper() for code in found.group("codes").split(",")]
            return offset + found.start("codes"), offset + found.end("codes"), codes
    return None


def _python_comment_lines(text: str) -> set[int]:
    """The lines that end outside a string and a backslash continuation (a comment may follow
    their last token); none when the file does not tokenize."""
    found: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                found.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        return set()
    return found


def _same_meaning(old: str, new: str, python: bool) -> bool:
    if python:
        try:
            return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))
        except (SyntaxError, ValueError):
            return False
    from ruamel.yaml.error import YAMLError

    from cfglint.fix.yaml_load import load

    try:
        return bool(load(old) == load(new))
    except YAMLError:
        return False


def _read_back(text: str, line: int, codes: Collection[str], python: bool) -> bool:
    found = directives.suppressions(text, python=python)
    return all(found.covers(line, code.upper()) for code in codes)
