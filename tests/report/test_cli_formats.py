"""The formats through the real command line, on the example config tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT, run_cli

# What `cfglint check . --output-format github` prints in examples/, line for line.
GITHUB_LINES = (
    (Path(__file__).parent / "data/examples.github.txt").read_text(encoding="utf-8").splitlines()
)


def _environ(**extra: str) -> dict[str, str]:
    """This process's environment without GitHub Actions' own variables (CI sets them)."""
    environ = {key: value for key, value in os.environ.items() if key != "GITHUB_WORKSPACE"}
    environ.update(extra)
    return environ


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """The examples as a user's git repository (SARIF paths are relative to its root)."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    root = tmp_path / "repository"
    shutil.copytree(EXAMPLES, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=300)
    return root


def test_github_annotations_for_the_examples(repository: Path) -> None:
    result = run_cli("check", ".", "--output-format", "github", cwd=repository, env=_environ())
    assert result.exit_code == 1, result.stderr
    assert result.stdout.splitlines() == GITHUB_LINES


def test_github_paths_are_relative_to_the_workspace(repository: Path) -> None:
    """GitHub resolves `file=` against the checkout: run from a sub-folder, the paths do not
    change when $GITHUB_WORKSPACE is set; without it they are relative to the folder."""
    folder = repository / "configs/dinov3"
    in_actions = run_cli(
        "check",
        ".",
        "--output-format",
        "github",
        cwd=folder,
        env=_environ(GITHUB_WORKSPACE=str(repository)),
    )
    assert in_actions.exit_code == 1, in_actions.stderr
    # The folder's configs, and the findings in the base file they inherit.
    expected = [line for line in GITHUB_LINES if "file=configs/gcu_smoke/" not in line]
    assert in_actions.stdout.splitlines() == expected
    local = run_cli("check", ".", "--output-format", "github", cwd=folder, env=_environ())
    assert local.exit_code == 1, local.stderr
    outside = repository.as_posix().replace(":", "%3A").replace(",", "%2C")
    # Files outside the folder (the base, the entry scripts) are absolute; the report is sorted
    # by the path it shows.
    assert sorted(local.stdout.splitlines()) == sorted(
        line.replace("file=configs/dinov3/", "file=")
        .replace("file=configs/_base_/", f"file={outside}/configs/_base_/")
        .replace("file=scripts/", f"file={outside}/scripts/")
        .replace("configs/dinov3/train", "train")
        for line in expected
    )


def test_sarif_for_the_examples_is_valid(
    repository: Path, validate_sarif: Callable[[object], None]
) -> None:
    # Run from a sub-folder: the URIs are still relative to the repository root.
    result = run_cli(
        "check", "..", "--output-format", "sarif", cwd=repository / "configs", env=_environ()
    )
    assert result.exit_code == 1, result.stderr
    log = json.loads(result.stdout)
    validate_sarif(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": repository.as_uri() + "/"}}
    results = run["results"]
    assert len(results) == len(GITHUB_LINES)
    base_results = [
        item
        for item in results
        if item["locations"][0]["physicalLocation"]["artifactLocation"]
        == {"uri": "configs/_base_/default_runtime.py", "uriBaseId": "%SRCROOT%"}
    ]
    assert {item["ruleId"] for item in base_results} == {"CL101", "CL301"}
    for item in base_results:
        assert len(item["relatedLocations"]) == 2
        assert "](1), [" in item["message"]["text"]
    # Both need the one `env_cfg` override in each leaf: the first result carries it, the other
    # names that result, so that applying every fix writes each edit once.
    cudnn, backend = sorted(base_results, key=lambda item: item["ruleId"], reverse=True)
    changes = cudnn["fixes"][0]["artifactChanges"]
    assert [change["artifactLocation"]["uri"] for change in changes] == [
        "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py",
        "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py",
    ]
    assert "fixes" not in backend
    assert backend["properties"]["fixAppliedWith"] == (
        "CL301 at configs/_base_/default_runtime.py:11:21"
    )


def test_rdjson_for_the_examples_is_valid(
    repository: Path, validate_rdjson: Callable[[object], None]
) -> None:
    result = run_cli("check", ".", "--output-format", "rdjson", cwd=repository, env=_environ())
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)
    validate_rdjson(document)
    diagnostics = document["diagnostics"]
    assert len(diagnostics) == len(GITHUB_LINES)
    ddp = next(item for item in diagnostics if item["location"]["path"].endswith("_ddp.py"))
    assert ddp["code"]["value"] == "CL201"
    assert ddp["location"]["range"] == {
        "start": {"line": 9, "column": 16},
        "end": {"line": 9, "column": 19},
    }
    assert ddp["suggestions"] == [
        {"range": {"start": {"line": 9}, "end": {"line": 9}}, "text": "    device_ids=None,"}
    ]
    # The finding spans the whole `dict(...)` the entry script writes (lines 45 to 49): the
    # suggestion rewrites those lines, so reviewdog can post it on the same lines as the comment.
    wrapper = next(
        item
        for item in diagnostics
        if item["location"]["path"] == "scripts/train_distributed_8card_gcu.py"
        and item["code"]["value"] == "CL201"
    )
    assert wrapper["location"]["range"] == {
        "start": {"line": 45, "column": 29},
        "end": {"line": 49, "column": 6},
    }
    [suggestion] = wrapper["suggestions"]
    assert suggestion["range"] == {"start": {"line": 45}, "end": {"line": 49}}
    assert suggestion["text"].endswith("        device_ids=None,\n    )")
    # The base-file findings' fixes land in the leaf configs (the base is shared with a CUDA
    # config): no suggestion on the base file's lines.
    base = [item for item in diagnostics if item["location"]["path"].startswith("configs/_base_/")]
    assert base and all("suggestions" not in item for item in base)


def test_json_and_text_agree_on_the_examples() -> None:
    as_json = run_cli("check", ".", "--output-format", "json", cwd=EXAMPLES)
    as_text = run_cli("check", ".", cwd=EXAMPLES)
    items = json.loads(as_json.stdout)
    assert as_text.stdout.endswith(
        f"Found {len(items)} errors on target t20-gcu.\n[*] 6 fixable with the `--fix` option "
        "(2 hidden fixes can be enabled with the `--unsafe-fixes` option).\n"
    )
    for item in items:
        relative = item["filename"].removeprefix(str(EXAMPLES) + "/")
        row, column = item["location"]["row"], item["location"]["column"]
        assert f"{relative}:{row}:{column}: {item['code']} " in as_text.stdout


def _doc_block(heading: str, language: str) -> str:
    """The first fenced block of `language` after `heading` in docs/integrations.md."""
    text = (REPO_ROOT / "docs/integrations.md").read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    start = section.index(f"```{language}\n") + len(f"```{language}\n")
    return section[start : section.index("```", start)]


def test_the_integrations_guide_shows_the_real_output(repository: Path) -> None:
    for heading, args in (
        ("## `text`", ()),
        ("`--statistics` prints", ("--statistics",)),
        ("## `github`", ("--output-format", "github")),
    ):
        result = run_cli("check", "configs/", *args, cwd=repository, env=_environ())
        assert _doc_block(heading, "text") == result.stdout, heading
