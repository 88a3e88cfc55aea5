"""`--cfg-options` values read exactly as MMEngine's own DictAction reads them.

Compared with the real `mmengine.config.DictAction` on hand-picked words and on thousands of
generated ones (fixed seed), failures included.
"""

from __future__ import annotations

import random

import pytest

from cfglint.launch.dict_action import OptionValueError, parse_option_value, parse_options

DictAction = pytest.importorskip("mmengine.config").DictAction

WORDS = [
    "1",
    "-3",
    "1.5",
    "1e3",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "True",
    "false",
    "TRUE",
    "None",
    "none",
    "null",
    "abc",
    "",
    "'quoted'",
    '"dq"',
    "'\"mixed'\"",
    "a b",
    "1,2,3",
    "[1,2]",
    "(1,2)",
    "[]",
    "()",
    "[(1,2),(3,4)]",
    "[1,[2,3]]",
    "((1,2),)",
    "a,b",
    "[a, b, c]",
    "[(1, 2, 3), [a, b], c]",
    "[1,2",
    "(1,2]",
    "x)(",
    "[1]]",
    ",",
    ",,",
    "[,]",
    "(,)",
    "1,",
    ",1",
    "[[]]",
    "[()]",
    "'[1,2]'",
    "mmdet.CocoDataset",
    "s3://bucket/a,b",
    "dict(a=1)",
    "{a:1}",
    "1.0,2",
    "[True,None,x]",
]


def _theirs(text: str) -> tuple[str, object]:
    try:
        return "ok", DictAction._parse_iterable(text)
    except (AssertionError, RecursionError):
        return "error", None


def _mine(text: str) -> tuple[str, object]:
    try:
        return "ok", parse_option_value(text)
    except OptionValueError:
        return "error", None


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple)
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


@pytest.mark.parametrize("text", WORDS)
def test_value_read_as_mmengine_reads_it(text: str) -> None:
    (mine_status, mine), (theirs_status, theirs) = _mine(text), _theirs(text)
    assert mine_status == theirs_status
    assert _same(mine, theirs), (text, mine, theirs)


def test_generated_values_agree_with_mmengine() -> None:
    rng = random.Random(20261125)
    alphabet = [*list("()[],'\" a1.-xTN"), "True", "None", "false", "12", "3.5"]
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        (mine_status, mine), (theirs_status, theirs) = _mine(text), _theirs(text)
        assert mine_status == theirs_status, text
        assert _same(mine, theirs), (text, mine, theirs)


def test_words_become_one_dict_later_keys_win() -> None:
    assert parse_options(["a.b=1", "c=[1,2]", "a.b=x"]) == {"a.b": "x", "c": [1, 2]}
    with pytest.raises(OptionValueError, match="KEY=VALUE"):
        parse_options(["novalue"])


def test_a_comma_mmengine_never_accepts_fails_as_mmengine_does() -> None:
    with pytest.raises(RecursionError):
        DictAction._parse_iterable("a]b,c[")
    with pytest.raises(OptionValueError, match="RecursionError"):
        parse_option_value("a]b,c[")
    assert parse_option_value("[[a]]") == [["a"]]
