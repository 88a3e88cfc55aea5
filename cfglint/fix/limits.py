"""What the fixer takes on: the size of a file it edits, and for ``.py`` files what it hands to
libcst and the room libcst gets to recurse.

Editing costs far more than reading: libcst holds about 5 KB and spends about 0.15 ms per node
of a ``.py`` file, and ruamel.yaml (pure Python) is slower still, so the fixer edits files up
to ``MAX_EDIT_BYTES`` (measured: docs/benchmarks.md), a fraction of what cfglint reads; a fix
in a larger file is reported as not applicable.

libcst builds and walks its tree recursively, several Python frames per level of an expression
(a 900-term ``1 + 1 + ...``, which MMEngine loads, is 900 levels), and its native parser has no
guard at all: about 10,000 levels of ``a and b and ...`` kill the process. Python's own parser
stops most nesting near 3,000 levels, but it keeps ``and``/``or`` chains and implicitly
concatenated strings flat, where libcst nests them. Its time also grows much faster than the
depth (one expression 1,000 deep takes 1.5 s, 2,000 deep 13 s). So the fixer measures a file as
libcst will build it and refuses one that is too deep or too costly (the fix is reported as not
applicable; checking is not affected); what it accepts runs in a thread with a large stack and
a raised recursion limit, where every accepted file fits (see docs/benchmarks.md).
"""

from __future__ import annotations

import ast
import io
import sys
import threading
import tokenize
from collections.abc import Callable
from typing import TypeVar

from cfglint.files import size_text

T = TypeVar("T")

# Measured (benchmarks/bench_hostile.py --sizes): the densest .py source this size takes under
# 7 s and 170 MB to fix, most of it libcst's (1.6 times the largest real .py config, 29 KB);
# YAML, edited with pure-Python ruamel.yaml, takes as long at half the size.
MAX_EDIT_BYTES = 48 * 1024
MAX_YAML_EDIT_BYTES = 24 * 1024
# Nesting as libcst builds it: the 900-term sums and 150-deep dicts MMEngine loads fit.
MAX_DEPTH = 1000
# libcst's time in bytes of flat source (65 us each, measured): the file's size, plus for each
# node its height squared over this. A chain of n levels is about n**3/3 units: the 1,000-term
# sum (4 KB, 0.43 s) counts as 6.6 KB; deeper chains cost more than this says (1,500 levels:
# 1.8 s), which is why the depth has a limit of its own.
_DEPTH_COST = 131_072
# Frames per level of nesting, measured: about 6 (6,000 are enough for 1,000 levels).
_RECURSION_LIMIT = 20 * MAX_DEPTH
_STACK_BYTES = 256 * 1024 * 1024


def too_large(text: str, suffix: str) -> str | None:
    """Why the fixer does not edit a file of this size and kind (None: it does)."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    limit = MAX_YAML_EDIT_BYTES if suffix in (".yaml", ".yml") else MAX_EDIT_BYTES
    if size <= limit:
        return None
    kind = "YAML files" if suffix in (".yaml", ".yml") else "files"
    return f"file too large to edit ({size:,} bytes; cfglint fixes {kind} up to " + (
        f"{size_text(limit)})"
    )


def too_costly(text: str) -> str | None:
    """Why libcst must not be given this ``.py`` source (None: it may)."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # libcst says it does not parse, without descending into it
    depth, work = _shape(tree)
    run = _longest_string_run(text)
    depth += run
    work += run**3 // 3
    if depth > MAX_DEPTH:
        return (
            f"expressions nested too deeply for the fixer ({depth:,} levels; it edits up to "
            f"{MAX_DEPTH:,})"
        )
    if size + work // _DEPTH_COST > MAX_EDIT_BYTES:
        return "expressions nested too deeply, too often, for the fixer"
    return None


def _shape(tree: ast.AST) -> tuple[int, int]:
    """The deepest nesting of the tree as libcst builds it, and the sum of its nodes' squared
    heights; without recursion (the tree may be thousands of levels deep)."""
    heights: dict[int, int] = {}
    deepest = 0
    work = 0
    stack: list[tuple[ast.AST, int, bool]] = [(tree, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        chain = len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1
        if not done:
            deepest = max(deepest, depth + chain - 1)
            stack.append((node, depth, True))
            stack.extend((child, depth + chain, False) for child in ast.iter_child_nodes(node))
            continue
        below = max((heights.pop(id(child), 0) for child in ast.iter_child_nodes(node)), default=0)
        # A BoolOp of n values is a chain of n - 1 nodes in libcst.
        for step in range(1, chain + 1):
            work += (below + step) ** 2
        heights[id(node)] = below + chain
    return deepest, work


def _longest_string_run(text: str) -> int:
    """The most string literals written one after the other (``'a' 'b' 'c'``, one constant for
    Python, a chain for libcst)."""
    if text.count("'") + text.count('"') < 2 * MAX_DEPTH // 4:
        return 0  # too few quotes for a run that matters
    longest = run = 0
    depth = 0  # inside an f-string (Python 3.12 splits it into tokens)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = token.type
            if kind == getattr(tokenize, "FSTRING_START", -1):
                depth += 1
                continue
            if kind == getattr(tokenize, "FSTRING_END", -1):
                depth -= 1
                kind = tokenize.STRING
            if depth:
                continue
            if kind == tokenize.STRING:
                run += 1
                longest = max(longest, run)
            elif kind not in (tokenize.NL, tokenize.COMMENT):
                run = 0
    except (tokenize.TokenError, SyntaxError):
        pass
    return longest


def run_deep(function: Callable[[], T]) -> T:
    """``function()`` in a thread with a large stack and a raised recursion limit (the limit is
    the interpreter's, so it is put back afterwards; this thread waits meanwhile)."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(function())
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    previous_limit = sys.getrecursionlimit()
    previous_stack = threading.stack_size()
    try:
        threading.stack_size(_STACK_BYTES)
        worker = threading.Thread(target=target, name="cfglint-libcst")
    finally:
        threading.stack_size(previous_stack)
    sys.setrecursionlimit(max(previous_limit, _RECURSION_LIMIT))
    try:
        worker.start()
    except RuntimeError:  # no room for the stack (a tight `ulimit -v`): the usual limits
        sys.setrecursionlimit(previous_limit)
        return function()
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(previous_limit)
    if failure:
        raise failure[0]
    return outcome[0]
