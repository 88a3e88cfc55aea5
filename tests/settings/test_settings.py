"""Settings discovery, target selection order, globs, noqa and --select/--ignore."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from cfglint import directives, globs
from cfglint.engine.selection import Selection
from cfglint.errors import UserError
from cfglint.settings import settings_for, target_name_for


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.cfglint]\n{table}", encoding="utf-8")
    (tmp_path / "configs" / "t20" / "smoke").mkdir(parents=True)
    return tmp_path


def _config(path: Path, text: str = "model = dict()\n") -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_target_order_cli_then_comment_then_glob_then_default(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        'default-target = "cuda"\n[tool.cfglint.targets]\n"configs/t20/**" = "t20-gcu"\n'
        '"configs/t20/smoke/*.py" = "cpu"\n',
    )
    plain = _config(root / "configs" / "a.py")
    t20 = _config(root / "configs" / "t20" / "b.py")
    smoke = _config(root / "configs" / "t20" / "smoke" / "c.py")
    commented = _config(root / "configs" / "t20" / "d.py", "# cfglint: target=cpu\nx = 1\n")
    assert target_name_for(plain, None) == "cuda"
    assert target_name_for(t20, None) == "t20-gcu"
    assert target_name_for(smoke, None) == "cpu"  # the more specific glob wins
    assert target_name_for(commented, None) == "cpu"
    assert target_name_for(commented, "cuda") == "cuda"


def test_no_target_says_how_to_give_one(tmp_path: Path) -> None:
    config = _config(_project(tmp_path, "") / "configs" / "a.py")
    with pytest.raises(UserError, match=r"a\.py: no target for this config: pass --target NAME"):
        target_name_for(config, None)


def test_bad_settings_are_one_line_errors(tmp_path: Path) -> None:
    _project(tmp_path, 'fix-placement = "somewhere"\n')
    with pytest.raises(UserError, match=r"pyproject.toml: \[tool.cfglint\] fix-placement"):
        settings_for(tmp_path / "configs")


def test_cfglint_toml_beats_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    _project(tmp_path, 'default-target = "cuda"\n')
    (tmp_path / "cfglint.toml").write_text('default-target = "cpu"\n', encoding="utf-8")
    assert settings_for(tmp_path).table.default_target == "cpu"


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("configs/t20/**", "configs/t20/a.py", True),
        ("configs/t20/**", "configs/t20/x/y/a.py", True),
        ("configs/t20", "configs/t20/x/a.py", True),
        ("configs/t20/*.py", "configs/t20/x/a.py", False),
        ("*.py", "deep/down/a.py", True),
        ("_base_", "configs/_base_/a.py", True),
        ("configs/t2?/*.py", "configs/t20/a.py", True),
        ("configs/t20/**", "configs/t200/a.py", False),
    ],
)
def test_globs(pattern: str, path: str, expected: bool) -> None:
    assert globs.matches(pattern, PurePosixPath(path)) is expected


def test_noqa_grammar() -> None:
    text = (
        "a = 1  # cfglint: noqa\n"
        "b = 2  # cfglint: noqa: CL201, CL202\n"
        "c = '# cfglint: noqa'\n"
        "d = 3  # noqa\n"
    )
    found = directives.noqa_by_line(text)
    assert found[1].covers("CL101")
    assert found[2].covers("CL202") and not found[2].covers("CL101")
    assert 3 not in found and 4 not in found


def test_target_comment_only_in_comments() -> None:
    assert (
        directives.target_comment("x = '# cfglint: target=cpu'\n# cfglint: target=t20-gcu\n")
        == "t20-gcu"
    )


@pytest.mark.parametrize(
    ("select", "ignore", "code", "wanted"),
    [
        (("ALL",), (), "CL201", True),
        (("ALL",), ("CL2",), "CL201", False),
        (("CL2",), ("CL201",), "CL201", False),
        (("CL201",), ("CL2",), "CL201", True),
        (("CL3",), (), "CL201", False),
        (("CL3",), (), "CL901", True),  # a config that cannot be resolved is always reported
    ],
)
def test_selection(
    select: tuple[str, ...], ignore: tuple[str, ...], code: str, wanted: bool
) -> None:
    assert Selection(select, ignore).wants(code) is wanted
