"""The pre-commit hooks, for real: a git repository, pre-commit, and a hook venv built by pip.

The hooks repository is a committed copy of this working tree (pre-commit clones a repository at a
commit; its own try-repo shadow commit leaves untracked files out). The hook environment is built
once per session in a shared PRE_COMMIT_HOME; `try-repo` always builds its own, so one test uses
it and the others go through `.pre-commit-config.yaml`, `pre-commit run` and `git commit`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO_ROOT

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "cfglint tests",
    "GIT_AUTHOR_EMAIL": "tests@cfglint.invalid",
    "GIT_COMMITTER_NAME": "cfglint tests",
    "GIT_COMMITTER_EMAIL": "tests@cfglint.invalid",
}
BASE = "configs/_base_/default_runtime.py"
MODEL_BASE = "configs/_base_/models/toy_backbone.py"
LEAF = "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py"
SMOKE = "configs/gcu_smoke/toy_gcu_smoke.py"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@dataclass(frozen=True)
class Run:
    exit_code: int
    output: str


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    completed = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    return Run(completed.returncode, completed.stdout + completed.stderr)


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    result = _run(["git", *args], cwd, env)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="session")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's environment: its own cache, torch pinned anyway, no venv of ours leaking in."""
    environ = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    environ.update(GIT_IDENTITY)
    environ["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    environ["PIP_CONSTRAINT"] = str(REPO_ROOT / "constraints.txt")
    environ["NO_COLOR"] = "1"
    return environ


@pytest.fixture(scope="session")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> tuple[Path, str]:
    """A git repository holding this working tree (tracked and untracked, not ignored) at HEAD."""
    listed = _git(REPO_ROOT, env, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    repo = tmp_path_factory.mktemp("hooks-repo")
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            target = repo / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "cfglint under test")
    return repo, _git(repo, env, "rev-parse", "HEAD").strip()


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str], hooks_repo: tuple[Path, str]) -> Path:
    """A user's repository: the example config tree, committed, with both hooks configured.

    CL102 (the launcher) has no automatic fix: this team ignores it in the hook arguments, the
    way a user narrows a hook, so that fixing everything else leaves a clean tree.
    """
    root = tmp_path / "project"
    shutil.copytree(EXAMPLES, root)
    _write_config(root, hooks_repo, ("cfglint-fix", "cfglint"))
    _git(root, env, "init", "-q")
    _git(root, env, "add", "-A")
    _git(root, env, "commit", "-q", "-m", "configs")
    return root


def _write_config(root: Path, hooks_repo: tuple[Path, str], hook_ids: tuple[str, ...]) -> None:
    repo, rev = hooks_repo
    hooks = "".join(f"      - id: {hook}\n        args: [--ignore, CL102]\n" for hook in hook_ids)
    config = f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n{hooks}"
    (root / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")


def _pre_commit(*args: str) -> list[str]:
    return [sys.executable, "-m", "pre_commit", *args]


def test_try_repo_check_fails_and_lists_the_violations(
    project: Path, env: dict[str, str], hooks_repo: tuple[Path, str]
) -> None:
    repo, _ = hooks_repo
    result = _run(_pre_commit("try-repo", str(repo), "cfglint", "--all-files"), project, env)
    assert result.exit_code == 1, result.output
    assert "cfglint..." in result.output and "Failed" in result.output
    assert f"{BASE}:" in result.output
    assert "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py:" in result.output


def test_fix_hook_rewrites_the_files_and_the_next_run_passes(
    project: Path, env: dict[str, str]
) -> None:
    before = (project / LEAF).read_text(encoding="utf-8")
    fixed = _run(_pre_commit("run", "cfglint-fix", "--all-files"), project, env)
    assert fixed.exit_code == 1, fixed.output
    assert "files were modified by this hook" in fixed.output
    after = (project / LEAF).read_text(encoding="utf-8")
    assert "device_ids=None" in after and "device_ids=None" not in before
    # The shared base is also used by a CUDA config: its values are overridden in the leaves.
    changed = _git(project, env, "diff", "--name-only").split()
    assert sorted(changed) == sorted([LEAF, LEAF.replace(".py", "_ddp.py"), SMOKE])
    again = _run(_pre_commit("run", "--all-files"), project, env)
    assert again.exit_code == 0, again.output
    assert "Passed" in again.output and "Failed" not in again.output


def test_a_commit_touching_only_a_base_file_flags_the_leaves(
    project: Path, env: dict[str, str], hooks_repo: tuple[Path, str]
) -> None:
    # Start from a clean, committed tree, checked (not fixed) on commit.
    _run(_pre_commit("run", "cfglint-fix", "--all-files"), project, env)
    _write_config(project, hooks_repo, ("cfglint",))
    _git(project, env, "commit", "-q", "-a", "-m", "fixed", "--no-verify")
    installed = _run(_pre_commit("install"), project, env)
    assert installed.exit_code == 0, installed.output
    # A change to the model base only: every DDP wrapper now inherits output_device=0.
    with (project / MODEL_BASE).open("a", encoding="utf-8") as base:
        base.write(
            "\nmodel_wrapper_cfg = dict(type='MMDistributedDataParallel', output_device=0)\n"
        )
    _git(project, env, "add", MODEL_BASE)
    staged = _git(project, env, "diff", "--cached", "--name-only").split()
    assert staged == [MODEL_BASE]
    commit = _run(["git", "commit", "-m", "wrap the toy model"], project, env)
    assert commit.exit_code == 1, commit.output
    assert f"{MODEL_BASE}:11:74: CL202 [*] `output_device=0`" in commit.output
    # pre-commit passed the base file only; the finding names the leaves that inherit it.
    assert f"  = applies to 2 configs: {LEAF}, {SMOKE}\n" in commit.output
    assert _git(project, env, "log", "--format=%s", "-1").strip() == "fixed"


def test_the_hook_environment_has_no_torch(project: Path, env: dict[str, str]) -> None:
    result = _run(_pre_commit("run", "cfglint", "--files", BASE), project, env)
    assert result.exit_code in (0, 1), result.output
    home = Path(env["PRE_COMMIT_HOME"])
    site_packages = list(home.glob("repo*/py_env-*/lib/python*/site-packages"))
    assert site_packages, "the hook environment was not built"
    for folder in site_packages:
        assert (folder / "cfglint").exists() or list(folder.glob("cfglint*"))
        assert not list(folder.glob("torch*")), "the hook pulled torch"
        assert not list(folder.glob("mmengine*")), "the hook pulled mmengine"
