"""Settings discovery, target selection order, globs, noqa and --select/--ignore."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from cfglint import directives, globs, session
from cfglint.engine.selection import Selection
from cfglint.errors import UserError
from cfglint.settings import settings_for, settings_for_file, target_name_for


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


def test_the_nearest_settings_upwards_govern_a_file_and_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    root = _project(tmp_path / "project", 'default-target = "cuda"\n')
    (root / "configs" / "t20" / "cfglint.toml").write_text('default-target = "t20-gcu"\n')
    deep = _config(root / "configs" / "t20" / "smoke" / "a.py")
    shallow = _config(root / "configs" / "b.py")
    # A folder named like a config is a folder: its own settings govern what is inside.
    (root / "configs" / "c.py").mkdir()
    (root / "configs" / "c.py" / "cfglint.toml").write_text('default-target = "cpu"\n')
    monkeypatch.chdir(root / "configs")
    with session.command():
        for _ in range(2):  # asked again: the remembered answers are the same
            assert settings_for(deep).table.default_target == "t20-gcu"
            assert settings_for_file(deep).table.default_target == "t20-gcu"
            assert settings_for(shallow).table.default_target == "cuda"
            assert settings_for_file(Path("b.py")).table.default_target == "cuda"
            assert settings_for(Path("c.py")).table.default_target == "cpu"
            assert settings_for(root / "configs" / "t20").table.default_target == "t20-gcu"
            assert settings_for(tmp_path).table.default_target is None
            assert settings_for(tmp_path).source is None


def test_bad_settings_are_one_line_errors(tmp_path: Path) -> None:
    _project(tmp_path, 'fix-placement = "somewhere"\n')
    with pytest.raises(UserError, match=r"pyproject.toml: \[tool.cfglint\] fix-placement"):
        settings_for(tmp_path / "configs")


def test_cfglint_toml_beats_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    _project(tmp_path, 'default-target = "cuda"\n')
    (tmp_path / "cfglint.toml").write_text('default-target = "cpu"\n', encoding="utf-8")
    assert settings_for(tmp_path).table.default_target == "cpu"


def test_default_exclusions_hold_outside_the_settings_root(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    settings = settings_for(_project(tmp_path / "project", 'exclude = ["configs/t20"]\n'))
    inside = tmp_path / "project" / "configs"
    outside = tmp_path / "elsewhere"
    assert settings.is_excluded(inside / "t20" / "a.py")  # the settings' own exclusion
    assert settings.is_excluded(inside / "build" / "a.py")
    assert not settings.is_excluded(inside / "a.py")
    # Outside the root only the default exclusions hold, on the path's folder names.
    assert settings.is_excluded(outside / ".git" / "a.py")
    assert settings.is_excluded(outside / "work_dirs" / "run" / "a.py")
    assert settings.is_excluded(outside / "build")
    assert not settings.is_excluded(outside / "configs" / "t20" / "a.py")


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
        "e = 4  # cfglint: NOQA: cl301 the entry point decides\n"
        "f = 5  # cfglint: noqa:CL101,CL102  # another comment\n"
    )
    found = directives.suppressions(text)
    assert found.covers(1, "CL101")
    assert found.covers(2, "CL202") and not found.covers(2, "CL101")
    assert not found.covers(3, "CL101") and not found.covers(4, "CL101")
    assert found.covers(5, "CL301") and not found.covers(5, "CL201")
    assert found.covers(6, "CL102") and not found.covers(6, "CL301")
    assert found.problems == ()


@pytest.mark.parametrize(
    "comment",
    [
        "# cfglint: noqa: CL-202",
        "# cfglint: noqa: CL202x",
        "# cfglint: noqa:",
        "# cfglint: noqa: CL201,",
        "# cfglint: noqa: CL201 CL-202",
        "# cfglint: noqa CL202",
    ],
)
def test_a_mistyped_noqa_suppresses_nothing_and_says_so(comment: str) -> None:
    found = directives.suppressions(f"model = dict()\nx = 1  {comment}\n")
    assert not found.covers(2, "CL202") and not found.covers(2, "CL101")
    assert [problem.line for problem in found.problems] == [2]
    assert "invalid `# cfglint: noqa` directive" in found.problems[0].message


def test_noqa_file_covers_every_line() -> None:
    text = '"""Doc."""\n# cfglint: noqa-file: CL201\nmodel = dict()\n'
    found = directives.suppressions(text)
    assert found.covers(1, "CL201") and found.covers(40, "CL201")
    assert not found.covers(1, "CL101")
    assert directives.suppressions("# cfglint: noqa-file\n").covers(9, "CL101")


def test_target_comment_only_in_comments() -> None:
    text = (
        '"""A docstring that mentions\n# cfglint: target=cuda\n"""\n'
        "x = '# cfglint: target=cpu'\n"
        "# CFGLINT: target=t20-gcu\n"
    )
    assert directives.target_comment(text) == ("t20-gcu", 5)
    assert directives.target_comment('"""\n# cfglint: target=cuda\n"""\n') is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            'fix-placement = "somewhere"\n',
            "fix-placement: must be one of 'auto', 'origin', 'leaf', not 'somewhere'",
        ),
        ('exclude = "build"\n', "exclude: must be a list, not 'build'"),
        ("extend-exclude = [3]\n", "extend-exclude.0: must be a string, not 3"),
        ('defualt-target = "cpu"\n', "defualt-target: unknown key: did you mean `default-target`?"),
        (
            'default-target = "cpu"\ndefault_target = "cuda"\n',
            "default_target: the same key as `default-target`: give it once",
        ),
        ('[tool.cfglint.targets]\n"a/**" = 3\n', "targets.a/**: must be a string, not 3"),
        (
            'select = ["CL2", "CL77"]\n',
            "select.1: unknown rule selector `CL77` (a code, a prefix such as CL2, or ALL)",
        ),
    ],
)
def test_a_settings_mistake_is_one_line_naming_the_key(
    tmp_path: Path, table: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.cfglint]\n{table}", encoding="utf-8")
    with pytest.raises(UserError) as caught:
        settings_for(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'pyproject.toml'}: [tool.cfglint] {message}"


def test_settings_keys_may_be_written_with_underscores(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault_target = "cpu"\nfix-placement = "leaf"\n', encoding="utf-8"
    )
    table = settings_for(tmp_path).table
    assert (table.default_target, table.fix_placement, table.exclude) == ("cpu", "leaf", ())


def test_settings_that_are_not_a_table_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool]\ncfglint = 3\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"pyproject.toml: \[tool.cfglint\] must be a table"):
        settings_for(tmp_path)


@pytest.mark.parametrize(
    ("table", "valid"),
    [
        ('select = ["CL2", "CL906", "CL", "ALL"]\n', True),
        ('select = ["CL999"]\n', False),
        ('ignore = ["CL7"]\n', False),
    ],
)
def test_settings_selectors_must_name_rules(tmp_path: Path, table: str, valid: bool) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.cfglint]\n{table}", encoding="utf-8")
    if valid:
        assert settings_for(tmp_path).table.select == ("CL2", "CL906", "CL", "ALL")
    else:
        with pytest.raises(UserError, match="unknown rule selector"):
            settings_for(tmp_path)


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


def test_a_cl906_follows_the_rule_that_needs_the_value() -> None:
    assert Selection(("ALL",), ()).wants("CL906", "CL102")
    assert not Selection(("ALL",), ("CL102",)).wants("CL906", "CL102")
    assert not Selection(("CL9",), ()).wants("CL906", "CL102")
    assert not Selection(("ALL",), ("CL906",)).wants("CL906", "CL102")
