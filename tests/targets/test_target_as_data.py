"""A target is data: a new one is one YAML file plus its examples, and every command honours it.

The file below is written into a temporary project and named only by `extra-targets`; `check`,
`fix`, `targets`, the JSON Schema export and the dry run's host assessment all read it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli

from cfglint.codes import CODES
from cfglint.engine.evaluate import evaluate
from cfglint.loader import Loader
from cfglint.rules import ALL_RULES, CHECK_RULES
from cfglint.targets import TargetRegistry
from cfglint.targets.docs import target_pages
from cfglint.targets.registry import shipped_targets_dir
from cfglint.types import ResolvedConfig

# A made-up accelerator MMEngine does not know: its host resolves 'cpu', init_dist takes the
# CUDA path, and only `gloo` process groups exist.
XPU_TARGET = """\
name: riscv-xpu
description: RISC-V XPU boards (made up for this test)
device: xpu
host:
  mmengine-device: cpu
  cuda: false
  init-dist: {set-device: torch.cuda.set_device}
keys:
  env_cfg.dist_cfg.backend:
    rule: CL101
    allowed: [gloo]
    default: nccl
    fix: {value: gloo, safe: true}
  optim_wrapper.type:
    rule: CL501
    forbidden: [AmpOptimWrapper]
examples:
  valid:
    - "env_cfg = dict(dist_cfg=dict(backend='gloo'))\\n"
  invalid:
    - config: "env_cfg = dict(dist_cfg=dict(backend='nccl'))\\n"
      codes: [CL101]
"""

CONFIG = """\
custom_imports = dict(imports=['toy_model'], allow_failed_imports=False)
default_scope = None
model = dict(type='ToyClassifier')
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
optim_wrapper = dict(type='AmpOptimWrapper', optimizer=dict(type='SGD', lr=0.01))
env_cfg = dict(dist_cfg=dict(backend='nccl'))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "riscv-xpu"\nextra-targets = ["targets/xpu.yaml"]\n'
        'exclude = ["toy_model.py"]\n',
        encoding="utf-8",
    )
    (tmp_path / "targets").mkdir()
    (tmp_path / "targets" / "xpu.yaml").write_text(XPU_TARGET, encoding="utf-8")
    (tmp_path / "job.py").write_text(CONFIG, encoding="utf-8")
    shutil.copy(EXAMPLES / "toy_model.py", tmp_path / "toy_model.py")
    return tmp_path


def test_check_and_fix_use_the_extra_target(project: Path) -> None:
    checked = run_cli("check", "job.py", cwd=project)
    assert checked.exit_code == 1, checked.stderr
    assert checked.stdout.splitlines()[:6] == [
        "job.py:5:27: CL501 `optim_wrapper.type='AmpOptimWrapper'` needs cuda/npu/mlu/musa; "
        "MMEngine resolves 'cpu' on the target",
        "  see: cfglint rule CL501",
        "job.py:6:38: CL101 [*] `env_cfg.dist_cfg.backend` is 'nccl', which does not work on "
        "the target: use 'gloo'",
        "  help: Set `env_cfg.dist_cfg.backend` to 'gloo'",
        "Found 2 errors on target riscv-xpu.",
        "[*] 1 fixable with the `--fix` option.",
    ]
    fixed = run_cli("check", "--fix", "job.py", cwd=project)
    assert fixed.exit_code == 1  # CL501 has no fix
    assert (project / "job.py").read_text(encoding="utf-8") == CONFIG.replace(
        "backend='nccl'", "backend='gloo'"
    )


def test_targets_lists_shows_and_exports_the_extra_target(project: Path) -> None:
    listed = run_cli("targets", cwd=project)
    assert "riscv-xpu           xpu     cpu                RISC-V XPU boards" in listed.stdout
    shown = run_cli("targets", "riscv-xpu", cwd=project).stdout
    assert "  host: MMEngine resolves 'cpu'; torch.cuda calls fail" in shown
    assert (
        "  init_dist: torch.cuda.set_device(...), then the backend env_cfg.dist_cfg names "
        "('nccl' when absent)"
    ) in shown
    schema = json.loads(run_cli("targets", "riscv-xpu", "--json-schema", cwd=project).stdout)
    assert schema["title"] == "MMEngine config for target riscv-xpu"
    described = [part["description"].split(":")[0] for part in schema["allOf"]]
    assert described == ["CL101", "CL501"]


def test_dryrun_judges_this_host_against_the_extra_targets_host(project: Path) -> None:
    fixed = CONFIG.replace("backend='nccl'", "backend='gloo'").replace("AmpOptimWrapper", "X")
    (project / "job.py").write_text(fixed, encoding="utf-8")
    # One rank: the host note is about what MMEngine resolved, which every rank reports alike.
    result = run_cli("dryrun", "job.py", "--world-size", "1", cwd=project)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert (
        "host: MMEngine resolved 'cpu'. MMEngine does not know 'xpu': on a riscv-xpu host it "
        "resolves 'cpu' too, so the wrap path shown is the one the riscv-xpu job runs"
    ) in result.stdout


SHIPPED = TargetRegistry()
EXAMPLES_OF = [
    (name, config, codes)
    for name in SHIPPED.names()
    for config, codes in (
        *((text, ()) for text in SHIPPED.get(name).examples.valid),
        *((case.config, case.codes) for case in SHIPPED.get(name).examples.invalid),
    )
]


@pytest.mark.parametrize(
    ("name", "config", "codes"),
    EXAMPLES_OF,
    ids=[f"{name}-{i}" for i, (name, _, _) in enumerate(EXAMPLES_OF)],
)
def test_target_examples(tmp_path: Path, name: str, config: str, codes: tuple[str, ...]) -> None:
    path = tmp_path / "leaf_config.py"
    path.write_text(config, encoding="utf-8")
    loaded = Loader(environ={}).load(path)
    assert isinstance(loaded, ResolvedConfig)
    found = {finding.code for finding in evaluate(loaded, SHIPPED.get(name), CHECK_RULES)}
    assert found == set(codes)


def test_every_shipped_target_has_examples_and_a_current_page() -> None:
    pages = target_pages(SHIPPED)
    folder = Path(__file__).resolve().parents[2] / "docs" / "targets"
    for name in SHIPPED.names():
        examples = SHIPPED.get(name).examples
        assert examples.valid and examples.invalid, name
    for page, text in pages.items():
        assert (folder / page).read_text(encoding="utf-8") == text, (
            f"regenerate docs/targets/{page}: python -m cfglint.targets.docs docs/targets"
        )
    assert {path.stem for path in shipped_targets_dir().glob("*.yaml")} <= {
        Path(page).stem for page in pages
    }


def test_the_codes_table_names_every_rule_with_its_severity_and_fix() -> None:
    assert set(CODES) == {rule.code for rule in ALL_RULES}
    for rule in ALL_RULES:
        entry = CODES[rule.code]
        assert (entry.fix != "none") is rule.fixable or rule.code == "CL401", rule.code
        assert (entry.scope == "launch") is (rule.check is None and rule.launch_check is not None)
    assert CODES["CL103"].severity == "info"


def test_an_info_finding_never_fails_check(tmp_path: Path) -> None:
    (tmp_path / "job.py").write_text(
        "model = dict(type='M')\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n",
        encoding="utf-8",
    )
    result = run_cli("check", "--target", "ascend-npu", "job.py", cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "job.py:2:38: CL103 `env_cfg.dist_cfg.backend='nccl'` is ignored: the target's init_dist "
        "always uses 'hccl'",
        "  see: cfglint rule CL103",
        "Found 1 note on target ascend-npu.",
    ]
    sarif = json.loads(
        run_cli("check", "--target", "ascend-npu", "--output-format", "sarif", "job.py",
                cwd=tmp_path).stdout
    )
    assert sarif["runs"][0]["results"][0]["level"] == "note"
