"""`cfglint fix` on the examples: the exact rewritten files, placement, idempotence, MMEngine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli
from project_tree import snapshot

SEED_001 = "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py"
SEED_000 = "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py"
# The entry script scripts/start_8card_training.sh starts SEED_001 with: it overwrites the
# config's model_wrapper_cfg, so that is where device_ids=None goes.
SCRIPT = "scripts/train_distributed_8card_gcu.py"
SCRIPT_V1 = "scripts/train_8card_gcu_v1.py"
SMOKE = "configs/gcu_smoke/toy_gcu_smoke.py"
CUDA = "configs/cuda/train_toy_cuda_8card.py"
RUNTIME = "configs/_base_/default_runtime.py"

# What `cfglint fix` must write, byte for byte: the CUDA leaf shares the runtime base, so the
# base stays as it is and each T20 leaf gets an override that MMEngine merges over it. The
# entry script sets SEED_001's model_wrapper_cfg itself: the config's own is never used, and
# the fix goes into the script.
FIXED_SEED_001 = """\
# DINOv3 fine-tuning on MMRS-1M, 8 x T20 GCU, as the team wrote it for the T20 port.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))

launcher = 'pytorch'

# Model wrapper for the GCU environment: device_ids left out on purpose,
# "so that the model handles device placement by itself".
model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    find_unused_parameters=False,
    broadcast_buffers=False,
)

train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=4000)
work_dir = './work_dirs/dinov3_mmrs1m_t20_gcu_8card'
"""

FIXED_SCRIPT_WRAPPER = """\
    cfg.model_wrapper_cfg = dict(
        type='MMDistributedDataParallel',
        find_unused_parameters=False,
        broadcast_buffers=False,
        device_ids=None,
    )
"""

FIXED_SEED_000 = """\
# The same job with the wrapper copied from a CUDA config (the first attempt).
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    device_ids=None,
    output_device=None,
    find_unused_parameters=False,
)

train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=4000)
work_dir = './work_dirs/dinov3_mmrs1m_t20_gcu_8card_ddp'
"""

FIXED_SMOKE = """\
# cfglint: target=t20-gcu
# A smoke test for the T20 port: the runtime is already ported, the wrapper is not.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    broadcast_buffers=False,
    find_unused_parameters=False,
    device_ids=None,
)

env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))

train_cfg = dict(type='IterBasedTrainLoop', max_iters=100, val_interval=100)
"""


@pytest.fixture()
def examples(tmp_path: Path) -> Path:
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_fix_rewrites_exactly_the_t20_leaves(examples: Path) -> None:
    before = snapshot(examples)
    result = run_cli("fix", cwd=examples)
    # Left: CL102 has no automatic fix (the entry script calls init_dist itself); CL401's fix
    # (the vendor import) is unsafe.
    assert result.exit_code == 1, result.stderr
    assert "Fixed 6 errors." in result.stdout
    assert [
        line.split(": ")[1].split()[0] for line in result.stdout.splitlines() if ": CL" in line
    ] == ["CL401", "CL102", "CL401"]
    after = snapshot(examples)
    changed = sorted(name for name in after if after[name] != before[name])
    assert changed == sorted([SEED_001, SEED_000, SMOKE, SCRIPT])
    assert (examples / SEED_001).read_text(encoding="utf-8") == FIXED_SEED_001
    assert (examples / SEED_000).read_text(encoding="utf-8") == FIXED_SEED_000
    assert (examples / SMOKE).read_text(encoding="utf-8") == FIXED_SMOKE
    assert FIXED_SCRIPT_WRAPPER in (examples / SCRIPT).read_text(encoding="utf-8")
    # The CUDA leaf and everything it inherits are untouched (checked by the snapshot above).
    assert after[CUDA] == before[CUDA] and after[RUNTIME] == before[RUNTIME]

    again = run_cli("fix", cwd=examples)
    assert snapshot(examples) == after  # a second fix changes nothing
    assert "Fixed" not in again.stdout

    # With the vendor import in both scripts, MMEngine sees the GCU: init_dist works there.
    unsafe = run_cli("fix", "--unsafe-fixes", cwd=examples)
    assert unsafe.exit_code == 0, unsafe.stdout
    assert "All checks passed!" in unsafe.stdout
    for script in (SCRIPT, SCRIPT_V1):
        text = (examples / script).read_text(encoding="utf-8")
        assert "from torch_gcu import transfer_to_gcu  # noqa: F401\n" in text
    assert run_cli("check", cwd=examples).exit_code == 0


def test_mmengine_loads_the_fixed_leaves_with_the_target_values(examples: Path) -> None:
    assert run_cli("fix", cwd=examples).exit_code == 1
    script = (
        "import json, sys\n"
        "from mmengine.config import Config\n"
        "out = {}\n"
        "for path in sys.argv[1:]:\n"
        "    cfg = Config.fromfile(path, import_custom_modules=False)\n"
        "    out[path] = dict(backend=cfg.env_cfg.dist_cfg.backend,\n"
        "        cudnn=cfg.env_cfg.cudnn_benchmark, wrapper=cfg.model_wrapper_cfg.to_dict(),\n"
        "        mp=cfg.env_cfg.mp_cfg.to_dict())\n"
        "print(json.dumps(out))\n"
    )
    leaves = [SEED_001, SEED_000, SMOKE]
    completed = subprocess.run(
        [sys.executable, "-c", script, *leaves],
        cwd=examples,
        capture_output=True,
        text=True,
        check=True, timeout=300,
    )
    loaded = json.loads(completed.stdout)
    for leaf in leaves:
        values = loaded[leaf]
        assert values["backend"] == "gloo"
        assert values["cudnn"] is False
        if leaf != SEED_001:  # its wrapper comes from the entry script, fixed there
            assert values["wrapper"]["device_ids"] is None
        assert values["wrapper"].get("output_device") is None
        # merged from the base, not lost by the override
        assert values["mp"] == {"mp_start_method": "fork", "opencv_num_threads": 0}


def test_diff_writes_nothing_and_exits_1(examples: Path) -> None:
    before = snapshot(examples)
    result = run_cli("check", "--diff", cwd=examples)
    assert result.exit_code == 1
    assert snapshot(examples) == before
    assert f"--- a/{SEED_000}\n+++ b/{SEED_000}\n" in result.stdout
    assert (
        "-    device_ids=[0],\n-    output_device=0,\n"
        "+    device_ids=None,\n+    output_device=None,\n"
        in result.stdout
    )
    run_cli("fix", cwd=examples)
    after_fix = run_cli("check", "--diff", cwd=examples)
    assert after_fix.exit_code == 0 and after_fix.stdout == ""


def test_auto_placement_fixes_the_base_when_every_inheritor_shares_the_target(
    examples: Path,
) -> None:
    shutil.rmtree(examples / "configs/cuda")
    result = run_cli("fix", "--target", "t20-gcu", cwd=examples)
    assert "Fixed" in result.stdout
    runtime = (examples / RUNTIME).read_text(encoding="utf-8")
    assert "    cudnn_benchmark=False,\n" in runtime
    assert "    dist_cfg=dict(backend='gloo'),\n" in runtime
    assert "env_cfg" not in (examples / SEED_000).read_text(encoding="utf-8")


@pytest.mark.parametrize(("placement", "base_changes"), [("origin", True), ("leaf", False)])
def test_fix_placement_flag(examples: Path, placement: str, base_changes: bool) -> None:
    before = (examples / RUNTIME).read_bytes()
    run_cli("fix", "--fix-placement", placement, cwd=examples)
    assert ((examples / RUNTIME).read_bytes() != before) is base_changes


def test_json_output_carries_the_edits(examples: Path) -> None:
    records = json.loads(run_cli("check", "--output-format", "json", cwd=examples).stdout)
    by_code = {(Path(r["filename"]).name, r["code"]): r for r in records}
    output_device = by_code[("train_dinov3_mmrs1m_t20_gcu_8card_ddp.py", "CL202")]
    assert output_device["fix"]["applicability"] == "safe"
    assert output_device["fix"]["edits"] == [
        {
            "content": "None",
            "location": {"row": 10, "column": 19},
            "end_location": {"row": 10, "column": 20},
            "filename": str(examples / SEED_000),
        }
    ]
    assert by_code[("train_8card_gcu_v1.py", "CL102")]["fix"] is None
    wrapper = by_code[("train_distributed_8card_gcu.py", "CL201")]
    assert wrapper["fix"]["edits"] == [
        {
            "content": "        device_ids=None,\n",
            "location": {"row": 49, "column": 1},
            "end_location": {"row": 49, "column": 1},
            "filename": str(examples / SCRIPT),
        }
    ]


def test_unsafe_fixes_need_the_flag(examples: Path) -> None:
    (examples / "t20-unsafe.yaml").write_text(
        "name: t20-unsafe\nextends: t20-gcu\ndescription: T20 with an unsafe backend fix\n"
        "keys:\n  env_cfg.dist_cfg.backend:\n    fix: {value: gloo, safe: false}\n",
        encoding="utf-8",
    )
    settings = examples / "pyproject.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(
            'exclude = ["toy_model.py"]',
            'exclude = ["toy_model.py"]\nextra-targets = ["t20-unsafe.yaml"]',
        ),
        encoding="utf-8",
    )
    safe_only = run_cli("fix", "--target", "t20-unsafe", "--select", "CL101", cwd=examples)
    assert safe_only.exit_code == 1
    assert "--unsafe-fixes" in safe_only.stdout
    assert "backend='nccl'" in (examples / RUNTIME).read_text(encoding="utf-8")
    unsafe = run_cli(
        "fix",
        "--target",
        "t20-unsafe",
        "--select",
        "CL101",
        "--unsafe-fixes",
        "--exit-non-zero-on-fix",
        cwd=examples,
    )
    assert unsafe.exit_code == 1  # clean now, but --exit-non-zero-on-fix
    assert "backend='gloo'" in (examples / RUNTIME).read_text(encoding="utf-8")


def test_fixing_one_leaf_never_edits_a_base_that_a_cuda_config_shares(examples: Path) -> None:
    """Only one T20 config is named, but the project's CUDA config inherits the same base."""
    before = snapshot(examples)
    run_cli("fix", SEED_001, cwd=examples)
    after = snapshot(examples)
    # Checked as its launcher starts it: the entry script's override is fixed too.
    assert sorted(name for name in after if after[name] != before[name]) == [SEED_001, SCRIPT]
    assert (examples / SEED_001).read_text(encoding="utf-8") == FIXED_SEED_001


def test_target_flag_applies_to_the_named_configs_only(examples: Path) -> None:
    """`--target` retargets the configs named, not the CUDA config sharing their base."""
    before = snapshot(examples)
    result = run_cli("fix", "--target", "t20-gcu", "configs/dinov3", cwd=examples)
    assert result.exit_code == 1, result.stderr
    assert "Fixed 5 errors." in result.stdout
    after = snapshot(examples)
    changed = sorted(name for name in after if after[name] != before[name])
    assert changed == [SEED_001, SEED_000, SCRIPT]
    assert after[SEED_001] == FIXED_SEED_001.encode()
    assert after[SEED_000] == FIXED_SEED_000.encode()


def test_origin_placement_names_the_configs_of_other_targets(examples: Path) -> None:
    result = run_cli("fix", "--fix-placement", "origin", cwd=examples)
    assert result.exit_code == 1
    warnings = result.stderr.splitlines()
    assert (
        "cfglint: warning: configs/_base_/default_runtime.py: changed for t20-gcu "
        "(--fix-placement origin), also inherited by configs/cuda/train_toy_cuda_8card.py [cuda]"
    ) in warnings
    # The backend cannot be right for both: reported, and left as it is.
    assert (
        "cfglint: warning: configs/_base_/default_runtime.py: `env_cfg.dist_cfg.backend` is not "
        "changed: configs for t20-gcu and cuda inherit it and need different values (e.g. "
        "configs/cuda/train_toy_cuda_8card.py); fix them with --fix-placement leaf"
    ) in warnings
    assert "dist_cfg=dict(backend='nccl')" in (examples / RUNTIME).read_text()
    assert "did not converge" not in result.stderr
