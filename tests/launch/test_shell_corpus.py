"""The real `tools/dist_train.sh` and `tools/slurm_train.sh` of mmdet, mmsegmentation and
mmpretrain (from their PyPI wheels), read as a user's launcher calls them and on their own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from corpus import PACKAGES, CorpusInfo, ensure_corpus

from cfglint.launch.shell import read_launcher
from cfglint.launch.shell.runner_options import SRUN_RANK_VARIABLES, TORCH_RANK_VARIABLES
from cfglint.types import Launch, Span

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus() -> CorpusInfo:
    return ensure_corpus()


@pytest.fixture(params=PACKAGES)
def project(request: pytest.FixtureRequest, corpus: CorpusInfo, tmp_path: Path) -> Path:
    """A project holding a copy of the package's real tools folder."""
    tools = corpus.site / request.param / ".mim" / "tools"
    root = tmp_path / request.param
    shutil.copytree(tools, root / "tools")
    return root


def _command_span(launcher: Path, first_word: str) -> Span:
    """Where the real launcher's Python command starts and ends (its prefix line to the last
    continuation line), found in its text rather than written down per package."""
    lines = launcher.read_text().splitlines()
    first = next(index for index, line in enumerate(lines) if line.startswith(first_word)) + 1
    last = first
    while lines[last - 1].endswith("\\"):
        last += 1
    return Span(launcher, first, 1, last, len(lines[last - 1].rstrip()) + 1)


def test_a_user_launcher_calling_the_real_dist_train(project: Path) -> None:
    start = project / "start.sh"
    call = "bash tools/dist_train.sh configs/x.py 8 --cfg-options a=1"
    start.write_text(call + "\n")
    result = read_launcher(start, cwd=project)
    assert result.problems == ()
    dist_train = project / "tools/dist_train.sh"
    assert result.launches == (
        Launch(
            entry=project / "tools/train.py",
            arguments=("configs/x.py", "--launcher", "pytorch", "--cfg-options", "a=1"),
            cwd=project,
            runner="torch.distributed.launch",
            nproc_per_node=8,
            nnodes=1,
            environment={"PYTHONPATH": "tools/..:$PYTHONPATH"},
            rank_variables=TORCH_RANK_VARIABLES,
            passes_local_rank=True,
            source=_command_span(dist_train, "PYTHONPATH="),
            via=(Span(start, 1, 1, 1, len(call) + 1),),
            notes=(
                "environment `PYTHONPATH=tools/..:$PYTHONPATH`: `$PYTHONPATH` is set outside the "
                "file",
                "`$NNODES` is not set in the file: its default `1` is taken",
            ),
        ),
    )
    assert result.files == (start, dist_train)


def test_the_real_dist_train_on_its_own(project: Path) -> None:
    result = read_launcher(project / "tools/dist_train.sh", cwd=project)
    [launch] = result.launches
    assert launch.entry == project / "tools/train.py"
    assert launch.arguments == ("$CONFIG", "--launcher", "pytorch")
    assert launch.unresolved == frozenset({0})
    assert (launch.nproc_per_node, launch.nnodes) == (None, 1)
    assert launch.notes[:3] == (
        "`--nproc_per_node=$GPUS`: `$2` is the launcher's argument 2: not known when the "
        "launcher is read on its own",
        "argument 0 `$CONFIG` is not known statically: `$1` is the launcher's argument 1: not "
        "known when the launcher is read on its own",
        "`${@:3}` is left out of the arguments: it may stand for any number of words (not known "
        "when the launcher is read on its own)",
    )


def test_a_user_launcher_calling_the_real_slurm_train(project: Path) -> None:
    slurm_train = project / "tools/slurm_train.sh"
    # mmseg's slurm_train.sh takes no work folder: its 4th argument is the first for train.py.
    takes_work_dir = "WORK_DIR=$4" in slurm_train.read_text()
    start = project / "start.sh"
    call = "GPUS=16 bash tools/slurm_train.sh dev job configs/x.py work_dirs/x --amp"
    start.write_text(call + "\n")
    result = read_launcher(start, cwd=project)
    assert result.problems == ()
    [launch] = result.launches
    expected_arguments = (
        ("configs/x.py", "--work-dir=work_dirs/x", "--launcher=slurm", "--amp")
        if takes_work_dir
        else ("configs/x.py", "--launcher=slurm", "work_dirs/x", "--amp")
    )
    per_node = 8 if takes_work_dir else 4
    assert launch == Launch(
        entry=project / "tools/train.py",
        arguments=expected_arguments,
        cwd=project,
        runner="srun",
        nproc_per_node=per_node,
        nnodes=16 // per_node,
        environment={"GPUS": "16", "PYTHONPATH": "tools/..:$PYTHONPATH"},
        rank_variables=SRUN_RANK_VARIABLES,
        source=_command_span(slurm_train, "PYTHONPATH="),
        via=(Span(start, 1, 1, 1, len(call) + 1),),
        notes=(
            "environment `PYTHONPATH=tools/..:$PYTHONPATH`: `$PYTHONPATH` is set outside the file",
            f"`$GPUS_PER_NODE` is not set in the file: its default `{per_node}` is taken",
        ),
    )


def test_every_real_tools_launcher_reads_without_problems(project: Path) -> None:
    launchers = sorted((project / "tools").rglob("*.sh"))
    assert launchers
    for launcher in launchers:
        result = read_launcher(launcher, cwd=project)
        assert result.problems == (), launcher
        for launch in result.launches:
            assert launch.entry.is_absolute()
