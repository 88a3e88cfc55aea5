"""Target files: shipped ones load, mistakes are reported with file and line, extends works."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import run_cli

from cfglint.errors import UserError
from cfglint.targets import TargetRegistry
from cfglint.targets.config_model import json_schema
from cfglint.targets.load import parse_fast, parse_round_trip
from cfglint.targets.registry import shipped_targets_dir

SHIPPED = sorted(shipped_targets_dir().glob("*.yaml"))


def test_shipped_targets_load() -> None:
    registry = TargetRegistry()
    assert registry.names() == [
        "apple-mps",
        "ascend-npu",
        "cambricon-mlu",
        "cpu",
        "cuda",
        "moore-threads-musa",
        "t20-gcu",
    ]
    t20 = registry.get("t20-gcu")
    assert t20.device == "gcu"
    assert not t20.mmengine_knows_device
    key, policy = t20.policy_for("CL101") or ("", None)
    assert key == "env_cfg.dist_cfg.backend"
    assert policy is not None and policy.allowed == ("gloo", "eccl")
    assert policy.fix is not None and policy.fix.value == "gloo"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_extends_merges_field_by_field(tmp_path: Path) -> None:
    extra = _write(
        tmp_path,
        "t20-eccl.yaml",
        "name: t20-eccl\nextends: t20-gcu\ndescription: T20 cluster with ECCL\nkeys:\n"
        "  env_cfg.dist_cfg.backend:\n    allowed: [eccl]\n    fix: {value: eccl}\n"
        "  env_cfg.cudnn_benchmark: null\n",
    )
    target = TargetRegistry([extra]).get("t20-eccl")
    assert target.device == "gcu"
    policy = target.keys["env_cfg.dist_cfg.backend"]
    assert policy.rule == "CL101"
    assert policy.allowed == ("eccl",)
    assert "env_cfg.cudnn_benchmark" not in target.keys
    assert target.sources == (extra, TargetRegistry().get("t20-gcu").sources[0])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "name: bad\ndescription: x\ndevice: gcu\nmmengine-knows-device: false\nkeys:\n"
            "  launcher:\n    rule: CL102\n    forbiden: [pytorch]\n",
            ":8: invalid target file: keys.launcher.forbiden: unknown key: did you mean "
            "`forbidden`?",
        ),
        (
            "name: bad\ndescription: 3\ndevice: gcu\nkeys: {}\n",
            ":2: invalid target file: description: must be a string, not 3",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nkeys:\n  launcher:\n    rul: CL102\n",
            ":6: invalid target file: keys.launcher.rul: unknown key: did you mean `rule`?",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nkeys:\n  launcher:\n    rule: CL12\n",
            ":6: invalid target file: keys.launcher.rule: must match `CL[0-9]{3}`, not 'CL12'",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nkeys:\n  launcher:\n    forbidden: [a]\n",
            ":5: invalid target file: keys.launcher.rule: missing: this key is required",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nkeys:\n  launcher:\n    rule: CL102\n"
            "    fix: {safe: true}\n",
            ":7: invalid target file: keys.launcher.fix: a fix needs `value: ...` or "
            "`remove: true`",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nmmengine-knows-device: false\nkeys:\n"
            "  env_cfg.cudnn_benchmark:\n    rule: CL301\n    allowed: [false]\n"
            "    fix: {value: true}\n",
            ":6: invalid target file: keys.env_cfg.cudnn_benchmark: the fix value True is not "
            "itself allowed",
        ),
        ("name: bad\n  device: [\n", ": invalid YAML in target file"),
        (
            "name: bad\ndescription: x\ndevice: gcu\nmmengine-knows-device: false\nkeys:\n"
            "  launcher:\n    rule: CL999\n    forbidden: [pytorch]\n",
            ":7: invalid target file: keys.launcher: unknown rule CL999 (a target can configure "
            "CL101, CL102, CL103, CL201, CL202, CL203, CL301, CL501)",
        ),
        (
            "name: bad\nextends: t20-gcu\ndescription: x\nkeys:\n"
            "  model_wraper_cfg.device_ids:\n    rule: CL201\n    allowed: [null]\n",
            ":6: invalid target file: keys.model_wraper_cfg.device_ids: rule CL201 checks "
            "`model_wrapper_cfg.device_ids`, not `model_wraper_cfg.device_ids`",
        ),
        (
            "name: bad\nextends: t20-gcu\ndescription: x\nkeys:\n"
            "  model_wrapper_cfg.output_devic:\n    rule: CL202\n    allowed: [null]\n",
            ":6: invalid target file: keys.model_wrapper_cfg.output_devic: rule CL202 checks "
            "`model_wrapper_cfg.output_device`",
        ),
        (
            "name: bad\ndescription: x\ndevice: gcu\nmmengine-knows-device: false\nkeys:\n"
            "  launcher:\n    rule: CL102\n    forbidden: [pytorch]\n"
            "  launcher:\n    rule: CL102\n    forbidden: [slurm]\n",
            ':9: invalid YAML in target file: found duplicate key "launcher"',
        ),
    ],
)
def test_bad_target_file_names_file_and_line(tmp_path: Path, body: str, expected: str) -> None:
    path = _write(tmp_path, "bad.yaml", body)
    with pytest.raises(UserError) as caught:
        TargetRegistry([path]).get("bad")
    assert str(caught.value).startswith(str(path))
    assert expected.split(":", 2)[-1] in str(caught.value)
    if expected.startswith(":") and expected[1].isdigit():
        assert f"{path}{expected.split(' ')[0]}" in str(caught.value)


def _typed(node: object) -> object:
    """YAML data with the type of every value (`1` is not `true`), mappings in their order; a
    parser's own subclass (ruamel.yaml's ScalarFloat, CommentedMap) as the type it extends."""
    if isinstance(node, dict):
        return ("map", [(_typed(key), _typed(value)) for key, value in node.items()])
    if isinstance(node, list):
        return ("seq", [_typed(item) for item in node])
    base = next((kind for kind in (bool, int, float, str) if isinstance(node, kind)), type(node))
    return (base.__name__, node)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_both_yaml_parsers_read_each_shipped_target_file_alike(path: Path) -> None:
    # Shipped files are read with PyYAML (YAML 1.1) for speed, a project's with ruamel.yaml
    # (YAML 1.2): a shipped file must mean the same to both.
    text = path.read_text(encoding="utf-8")
    assert _typed(parse_fast(path, text)) == _typed(parse_round_trip(path, text))


def test_the_yaml_parsers_differ_where_yaml_1_1_and_1_2_do(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    for text in ("a: on\n", "a: 010\n", "a: 1:30\n"):
        assert _typed(parse_fast(path, text)) != _typed(parse_round_trip(path, text))


def test_shipped_targets_read_fast_are_the_targets_read_with_line_numbers() -> None:
    fast, with_lines = TargetRegistry(), TargetRegistry(SHIPPED)  # a project's files: ruamel
    for name in fast.names():
        assert fast.get(name) == with_lines.get(name)


def test_a_mistake_met_in_a_shipped_file_names_its_line(tmp_path: Path) -> None:
    # The vendor import's keys make the inherited CL301 policy's fix not allowed: the entry is
    # found in the shipped file, read again with line numbers to say where.
    mine = _write(
        tmp_path,
        "mine.yaml",
        "name: mine\nextends: t20-gcu\ndescription: x\nhost:\n  mmengine-device: cpu\n"
        "  cuda: false\n  vendor-import:\n    library: torch_gcu\n"
        "    modules: [torch_gcu.transfer_to_gcu]\n    statement: import torch_gcu\n"
        "    mmengine-device: cuda\n    cuda: true\n"
        "    keys: {env_cfg.cudnn_benchmark: {allowed: [true]}}\n",
    )
    shipped = shipped_targets_dir() / "t20-gcu.yaml"
    line = shipped.read_text(encoding="utf-8").splitlines().index("  env_cfg.cudnn_benchmark:")
    with pytest.raises(UserError) as caught:
        TargetRegistry([mine]).get("mine")
    assert str(caught.value) == (
        f"{shipped}:{line + 1}: invalid target file: keys.env_cfg.cudnn_benchmark: the fix "
        "value False is not itself allowed"
    )


def test_a_project_target_file_keeps_reading_yaml_1_1_booleans(tmp_path: Path) -> None:
    # YAML 1.2 reads `no` and `yes` as strings; target files always took them for booleans.
    mine = _write(
        tmp_path,
        "mine.yaml",
        "name: mine\nextends: cpu\ndescription: x\nhost:\n  mmengine-device: cpu\n"
        "  cuda: no\n  sync-batchnorm: yes\n",
    )
    host = TargetRegistry([mine]).get("mine").host
    assert (host.cuda, host.sync_batchnorm) == (False, True)


def test_unknown_target_lists_known_ones() -> None:
    with pytest.raises(UserError, match=r"unknown target 'nope' .*cpu, cuda, .*t20-gcu"):
        TargetRegistry().get("nope")


def test_the_schema_is_the_target_files_data() -> None:
    schema = json_schema(TargetRegistry().get("t20-gcu"))
    validator = jsonschema.Draft202012Validator(schema)
    clean = {
        "env_cfg": {"dist_cfg": {"backend": "gloo"}, "cudnn_benchmark": False},
        "model_wrapper_cfg": {"device_ids": None},
    }
    assert validator.is_valid(clean)
    nccl = {"env_cfg": {"dist_cfg": {"backend": "nccl"}}, "model_wrapper_cfg": {"device_ids": None}}
    errors = [error.message for error in validator.iter_errors(nccl)]
    # The one failing branch is the policy the target file writes for CL101.
    assert errors == ["'nccl' is not one of ['gloo', 'eccl']"]


def test_cli_lists_shows_and_exports_schema() -> None:
    listed = run_cli("targets")
    assert listed.exit_code == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == TargetRegistry().names()
    shown = run_cli("targets", "t20-gcu")
    assert (
        "CL101  env_cfg.dist_cfg.backend: one of 'gloo', 'eccl'; fix: write 'gloo' (safe)"
        in shown.stdout
    )
    schema = json.loads(run_cli("targets", "t20-gcu", "--json-schema").stdout)
    assert schema["title"] == "MMEngine config for target t20-gcu"
    backend = next(part for part in schema["allOf"] if part["description"].startswith("CL101"))
    env_cfg = backend["properties"]["env_cfg"]
    assert env_cfg["properties"]["dist_cfg"]["properties"]["backend"] == {"enum": ["gloo", "eccl"]}
    unknown = run_cli("targets", "h100")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("cfglint: error: unknown target 'h100'")


def test_a_typo_in_an_extra_target_file_stops_check_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cfglint]\ndefault-target = "mine"\nextra-targets = ["mine.yaml"]\n',
        encoding="utf-8",
    )
    _write(
        tmp_path,
        "mine.yaml",
        "name: mine\nextends: t20-gcu\ndescription: x\nkeys:\n"
        "  model_wraper_cfg.device_ids:\n    rule: CL201\n    allowed: [null]\n",
    )
    for name in ("a.py", "b.py"):
        _write(tmp_path, name, "model = dict(type='M')\n")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"cfglint: error: {tmp_path / 'mine.yaml'}:6: invalid target file: "
        "keys.model_wraper_cfg.device_ids: rule CL201 checks `model_wrapper_cfg.device_ids`, "
        "not `model_wraper_cfg.device_ids`"
    ]
    assert "All checks passed!" not in result.stdout
