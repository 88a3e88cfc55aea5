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
DDP_LEAF = "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py"
# scripts/start_8card_training.sh starts LEAF with this script, which sets the wrapper itself.
SCRIPT = "scripts/train_distributed_8card_gcu.py"
SMOKE = "configs/gcu_smoke/toy_gcu_smoke.py"
CUDA_LEAF = "configs/cuda/train_toy_cuda_8card.py"

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

    CL102 (init_dist in an entry script) has no automatic fix and CL401's (the vendor import) is
    unsafe: this team ignores both in the hook arguments, the way a user narrows a hook, so that
    fixing everything else leaves a clean tree.
    """
    return _new_project(tmp_path / "project", env, hooks_repo)


def _new_project(root: Path, env: dict[str, str], hooks_repo: tuple[Path, str]) -> Path:
    shutil.copytree(EXAMPLES, root)
    _write_config(root, hooks_repo, ("cfglint-fix", "cfglint"))
    _git(root, env, "init", "-q")
    _git(root, env, "add", "-A")
    _git(root, env, "commit", "-q", "-m", "configs")
    return root


def _write_config(root: Path, hooks_repo: tuple[Path, str], hook_ids: tuple[str, ...]) -> None:
    repo, rev = hooks_repo
    hooks = "".join(
        f"      - id: {hook}\n        args: [--ignore, 'CL102,CL401']\n" for hook in hook_ids
    )
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
    before = (project / SCRIPT).read_text(encoding="utf-8")
    fixed = _run(_pre_commit("run", "cfglint-fix", "--all-files"), project, env)
    assert fixed.exit_code == 1, fixed.output
    assert "files were modified by this hook" in fixed.output
    # LEAF's wrapper is the entry script's: fixed there, though pre-commit named configs only.
    after = (project / SCRIPT).read_text(encoding="utf-8")
    assert "device_ids=None" in after and "device_ids=None" not in before
    # The shared base is also used by a CUDA config: its values are overridden in the leaves.
    changed = _git(project, env, "diff", "--name-only").split()
    assert sorted(changed) == sorted([LEAF, DDP_LEAF, SMOKE, SCRIPT])
    again = _run(_pre_commit("run", "--all-files"), project, env)
    assert again.exit_code == 0, again.output
    assert "Passed" in again.output and "Failed" not in again.output


@pytest.fixture(scope="module")
def clean_project_built(
    tmp_path_factory: pytest.TempPathFactory, env: dict[str, str], hooks_repo: tuple[Path, str]
) -> Path:
    """The project fixed, committed, and checked (not fixed) by the git hook on every commit;
    built once (a pre-commit run, a commit, the hook installed), for `clean_project` to copy."""
    project = _new_project(tmp_path_factory.mktemp("clean") / "project", env, hooks_repo)
    _run(_pre_commit("run", "cfglint-fix", "--all-files"), project, env)
    _write_config(project, hooks_repo, ("cfglint",))
    _git(project, env, "commit", "-q", "-a", "-m", "fixed", "--no-verify")
    installed = _run(_pre_commit("install"), project, env)
    assert installed.exit_code == 0, installed.output
    return project


@pytest.fixture
def clean_project(clean_project_built: Path, tmp_path: Path) -> Path:
    """A copy of the clean project, its git repository and hook included, for one test."""
    return Path(shutil.copytree(clean_project_built, tmp_path / "project", symlinks=True))


def _commit(project: Path, env: dict[str, str], *paths: str) -> Run:
    _git(project, env, "add", *paths)
    staged = _git(project, env, "diff", "--cached", "--name-only").split()
    assert sorted(staged) == sorted(paths)
    return _run(["git", "commit", "-m", "change"], project, env)


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as stream:
        stream.write(text)


def test_a_commit_touching_only_a_base_file_flags_the_leaves(
    clean_project: Path, env: dict[str, str]
) -> None:
    # A change to the model base only: every DDP wrapper now inherits output_device=0.
    _append(
        clean_project / MODEL_BASE,
        "\nmodel_wrapper_cfg = dict(type='MMDistributedDataParallel', output_device=0)\n",
    )
    commit = _commit(clean_project, env, MODEL_BASE)
    assert commit.exit_code == 1, commit.output
    assert f"{MODEL_BASE}:22:74: CL202 [*] `output_device=0`" in commit.output
    # pre-commit passed the base file only; the finding names the leaves that inherit it and
    # use that wrapper (LEAF's entry script sets its own, DDP_LEAF its own output_device).
    assert f"  = applies to 1 config: {SMOKE}\n" in commit.output
    assert _git(clean_project, env, "log", "--format=%s", "-1").strip() == "fixed"


def test_a_commit_breaking_a_base_file_fails(clean_project: Path, env: dict[str, str]) -> None:
    _append(clean_project / MODEL_BASE, "oops = (\n")
    commit = _commit(clean_project, env, MODEL_BASE)
    assert commit.exit_code == 1, commit.output
    assert f"{MODEL_BASE}:21:8: CL901 syntax error: '(' was never closed" in commit.output
    # Every config inheriting the base fails to load: all four are named.
    assert "  = applies to 4 configs: " in commit.output
    assert _git(clean_project, env, "log", "--format=%s", "-1").strip() == "fixed"


def test_a_commit_of_a_base_and_one_of_its_leaves_checks_the_other_leaves(
    clean_project: Path, env: dict[str, str]
) -> None:
    # The CUDA leaf inherits the base too, and is clean; the T20 leaves are not, after this.
    _append(
        clean_project / BASE,
        "\nmodel_wrapper_cfg = dict(type='MMDistributedDataParallel', output_device=0)\n",
    )
    _append(clean_project / CUDA_LEAF, "# tuned for the new cluster\n")
    commit = _commit(clean_project, env, BASE, CUDA_LEAF)
    assert commit.exit_code == 1, commit.output
    assert f"{BASE}:" in commit.output and "CL202 [*] `output_device=0`" in commit.output
    assert f"  = applies to 1 config: {SMOKE}\n" in commit.output


def test_a_commit_changing_a_leaf_flags_the_leaves_built_on_it(
    clean_project: Path, env: dict[str, str]
) -> None:
    """OpenMMLab's `_base_ = './x_1x.py'` chains: the config inheriting the changed one is
    checked too, though it lies in no `_base_` folder and the commit does not touch it."""
    child = "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp_long.py"
    (clean_project / child).write_text(
        "_base_ = './train_dinov3_mmrs1m_t20_gcu_8card_ddp.py'\n"
        "train_cfg = dict(type='IterBasedTrainLoop', max_iters=80000, val_interval=4000)\n",
        encoding="utf-8",
    )
    _git(clean_project, env, "add", child)
    _git(clean_project, env, "commit", "-q", "-m", "a longer schedule", "--no-verify")
    leaf = clean_project / DDP_LEAF
    leaf.write_text(
        leaf.read_text(encoding="utf-8").replace("device_ids=None", "device_ids=[0]", 1),
        encoding="utf-8",
    )
    commit = _commit(clean_project, env, DDP_LEAF)
    assert commit.exit_code == 1, commit.output
    assert f"{DDP_LEAF}:" in commit.output and "CL201 [*] `device_ids=[0]`" in commit.output
    assert f"  = applies to 2 configs: {DDP_LEAF}, {child}\n" in commit.output


def test_a_lazy_config_is_checked_and_its_error_blocks_the_commit(
    clean_project: Path, env: dict[str, str]
) -> None:
    lazy = "configs/dinov3/retinanet_lazy.py"  # a t20-gcu folder
    (clean_project / lazy).write_text(
        "from mmengine.config import read_base\n\nwith read_base():\n"
        "    from .._base_.default_runtime import *\n\n"
        "model = dict(type='M')\nenv_cfg.dist_cfg.backend = 'nccl'\n",
        encoding="utf-8",
    )
    commit = _commit(clean_project, env, lazy)
    assert commit.exit_code == 1, commit.output
    assert f"{lazy}:7:28: CL101 [*] `env_cfg.dist_cfg.backend` is 'nccl'" in commit.output


def test_the_hooks_honour_exclude_for_the_files_pre_commit_names(
    clean_project: Path, env: dict[str, str]
) -> None:
    settings = clean_project / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(
            'exclude = ["toy_model.py"]', 'exclude = ["toy_model.py", "configs/legacy"]'
        ),
        encoding="utf-8",
    )
    legacy = "configs/legacy/old_8card.py"
    (clean_project / legacy).parent.mkdir()
    (clean_project / legacy).write_text(
        "# cfglint: target=t20-gcu\nmodel = dict(type='Old')\n"
        "model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=[0])\n",
        encoding="utf-8",
    )
    commit = _commit(clean_project, env, "pyproject.toml", legacy)
    assert commit.exit_code == 0, commit.output
    # Without the exclusion the same file fails the hook.
    named = _run(_pre_commit("run", "cfglint", "--files", legacy), clean_project, env)
    assert named.exit_code == 0, named.output
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(', "configs/legacy"', ""), encoding="utf-8"
    )
    unexcluded = _run(_pre_commit("run", "cfglint", "--files", legacy), clean_project, env)
    assert unexcluded.exit_code == 1, unexcluded.output
    assert f"{legacy}:3:" in unexcluded.output


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
