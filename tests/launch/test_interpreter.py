"""The launch view on small entry scripts: what each path hands to the Runner."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cfglint.launch.explore import MAX_WORLDS, explore
from cfglint.loader import Loader
from cfglint.types import (
    HostFacts,
    Launch,
    LaunchView,
    LaunchWorld,
    UnknownNode,
    VendorImport,
    to_python,
)

CPU = HostFacts("cpu", cuda=False)
GCU = HostFacts(
    "cpu",
    cuda=False,
    vendor_import=VendorImport(
        ("torch_gcu.transfer_to_gcu",),
        "from torch_gcu import transfer_to_gcu",
        "cuda",
        True,
        "torch_gcu",
    ),
    absent_libraries=frozenset({"torch_npu"}),
)
CONFIG = """\
model = dict(type='ToyClassifier')
train_dataloader = dict(batch_size=2, num_workers=2)
val_dataloader = None
optim_wrapper = dict(type='OptimWrapper')
"""
PARSER = """\
import argparse
import os
import sys
from mmengine.config import Config, DictAction
from mmengine.runner import Runner
parser = argparse.ArgumentParser()
parser.add_argument('config')
parser.add_argument('--launcher', default='none')
parser.add_argument('--cfg-options', nargs='+', action=DictAction)
"""


def _view(
    tmp_path: Path,
    script: str,
    *arguments: str,
    host: HostFacts = CPU,
    **launch_fields: object,
) -> LaunchView:
    (tmp_path / "config.py").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    fields: dict[str, object] = {"runner": "python", **launch_fields}
    launch = Launch(
        tmp_path / "train.py",
        ("config.py", *arguments),
        tmp_path,
        **fields,  # type: ignore[arg-type]
    )
    return explore(launch, host, Loader(environ={}))


def _value(world: LaunchWorld, key: str) -> object:
    assert world.config is not None
    node = world.config.get(key)
    assert node is not None, key
    return to_python(node)


def test_functions_of_the_script_run_with_their_own_scopes(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        from copy import deepcopy
        from mmengine.config import ConfigDict

        args = parser.parse_args()

        def merge_args(cfg, args, pin=True):
            default = ConfigDict(pin_memory=pin, persistent_workers=True)

            def set_default(cfg, field):
                if cfg.get(field, None) is None:
                    return
                loader_cfg = deepcopy(default)
                loader_cfg.update(cfg[field])
                cfg[field] = loader_cfg

            set_default(cfg, 'train_dataloader')
            set_default(cfg, 'val_dataloader')
            cfg.launcher = args.launcher
            return cfg

        cfg = merge_args(Config.fromfile(args.config), args, pin=False)
        Runner.from_cfg(cfg)
        """
        ),
        "--launcher",
        "pytorch",
    )
    (world,) = view.worlds
    assert _value(world, "train_dataloader") == {
        "pin_memory": False,
        "persistent_workers": True,
        "batch_size": 2,
        "num_workers": 2,
    }
    assert _value(world, "val_dataloader") is None
    assert _value(world, "launcher") == "pytorch"


def test_a_call_into_another_module_leaves_the_config_alone(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        from mytools import patch_config
        cfg = Config.fromfile(parser.parse_args().config)
        patch_config(cfg)
        cfg.launcher = 'pytorch'
        Runner.from_cfg(cfg)
        """
        ),
    )
    (world,) = view.worlds
    assert _value(world, "launcher") == "pytorch"
    assert _value(world, "optim_wrapper") == {"type": "OptimWrapper"}


def test_undecidable_branches_give_paths_and_equal_paths_merge(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        cfg = Config.fromfile(parser.parse_args().config)
        if 'LOCAL_RANK' not in os.environ:
            os.environ['LOCAL_RANK'] = '0'
        if os.environ.get('AMP') == '1':
            cfg.optim_wrapper.type = 'AmpOptimWrapper'
        Runner.from_cfg(cfg)
        """
        ),
    )
    assert len(view.worlds) == 2  # the LOCAL_RANK branch changes nothing that matters
    by_condition = {w.conditions[0].holds: _value(w, "optim_wrapper.type") for w in view.worlds}
    assert by_condition == {True: "AmpOptimWrapper", False: "OptimWrapper"}
    assert all(c.text == "os.environ.get('AMP') == '1'" for w in view.worlds for c in w.conditions)


def test_the_same_test_is_answered_the_same_way_on_one_path(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        cfg = Config.fromfile(parser.parse_args().config)
        fast = os.environ.get('FAST')
        if fast:
            cfg.a = 1
        if fast:
            cfg.b = 1
        Runner.from_cfg(cfg)
        """
        ),
    )
    keys = sorted(
        sorted(k for k in ("a", "b") if w.config and k in w.config.root.entries)
        for w in view.worlds
    )
    assert keys == [[], ["a", "b"]]


def test_more_paths_than_the_budget_are_said_to_be_incomplete(tmp_path: Path) -> None:
    branches = "".join(
        f"if os.environ.get('FLAG{index}'):\n    cfg.key{index} = {index}\n" for index in range(7)
    )
    view = _view(
        tmp_path,
        PARSER
        + "cfg = Config.fromfile(parser.parse_args().config)\n"
        + branches
        + "Runner.from_cfg(cfg)\n",
    )
    assert len(view.worlds) == MAX_WORLDS
    assert not view.complete
    assert any("more than 32 paths" in note for note in view.notes)


def test_the_script_exiting_before_the_runner_ends_the_path(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        cfg = Config.fromfile(parser.parse_args().config)
        if cfg.get('work_dir') is None:
            sys.exit(1)
        Runner.from_cfg(cfg)
        """
        ),
    )
    (world,) = view.worlds
    assert world.config is None
    assert world.ending == "the script exits"


def test_argparse_rejects_the_local_rank_torch_distributed_launch_appends(tmp_path: Path) -> None:
    script = PARSER + "cfg = Config.fromfile(parser.parse_args().config)\nRunner.from_cfg(cfg)\n"
    view = _view(tmp_path, script, passes_local_rank=True)
    (world,) = view.worlds
    assert world.config is None
    assert world.ending is not None
    assert "unrecognized arguments: --local-rank=0" in world.ending
    accepting = script.replace(
        "parser.add_argument('--launcher'",
        "parser.add_argument('--local_rank', '--local-rank', type=int, default=0)\n"
        "parser.add_argument('--launcher'",
    )
    view = _view(tmp_path, accepting, passes_local_rank=True)
    assert view.worlds[0].config is not None


def test_a_word_the_launcher_cannot_resolve_is_unknown_where_it_lands(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        args = parser.parse_args()
        cfg = Config.fromfile(args.config)
        cfg.merge_from_dict(args.cfg_options)
        Runner.from_cfg(cfg)
        """
        ),
        "--cfg-options",
        "work_dir=$WORK",
        "env_cfg.cudnn_benchmark=False",
        unresolved=frozenset({2}),
    )
    (world,) = view.worlds
    assert world.config is not None
    assert isinstance(world.config.get("work_dir"), UnknownNode)
    assert _value(world, "env_cfg") == {"cudnn_benchmark": False}


def test_runner_built_from_keywords_and_from_the_registry(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        from mmdet.registry import RUNNERS
        cfg = Config.fromfile(parser.parse_args().config)
        if 'runner_type' in cfg:
            runner = Runner(model=cfg.model, launcher='pytorch', cfg=cfg)
        else:
            runner = RUNNERS.build(cfg)
        runner.train()
        """
        ),
    )
    (world,) = view.worlds
    assert [e.name for e in world.events if e.kind == "runner"] == ["mmdet.registry.RUNNERS.build"]
    keyword_view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        cfg = Config.fromfile(parser.parse_args().config)
        runner = Runner(model=cfg.model, launcher='pytorch', cfg=cfg)
        """
        ),
    )
    assert _value(keyword_view.worlds[0], "launcher") == "pytorch"


def test_vendor_import_in_a_guarded_block_before_mmengine(tmp_path: Path) -> None:
    script = (
        "try:\n"
        "    import torch_gcu\n"
        "    from torch_gcu import transfer_to_gcu\n"
        "except ImportError:\n"
        "    torch_gcu = None\n"
        "try:\n"
        "    import torch_npu\n"
        "except ImportError:\n"
        "    torch_npu = None\n"
        "import torch\n"
        f"{PARSER}"
        "cfg = Config.fromfile(parser.parse_args().config)\n"
        "cfg.npu = torch_npu is None\n"
        "cfg.cuda = torch.cuda.is_available()\n"
        "Runner.from_cfg(cfg)\n"
    )
    view = _view(tmp_path, script, host=GCU)
    (world,) = view.worlds
    assert world.vendor_imported
    assert _value(world, "npu") is True  # another vendor's library is not on this host
    assert _value(world, "cuda") is True  # transfer_to_gcu answers for the GCU
    view = _view(
        tmp_path, script.replace("from torch_gcu import transfer_to_gcu", "pass"), host=GCU
    )
    assert not view.worlds[0].vendor_imported
    assert _value(view.worlds[0], "cuda") is False


def test_sys_argv_and_the_environment_a_launcher_sets(tmp_path: Path) -> None:
    view = _view(
        tmp_path,
        PARSER
        + textwrap.dedent(
            """\
        cfg = Config.fromfile(sys.argv[1])
        cfg.world = int(os.environ['WORLD_SIZE'])
        cfg.rank = os.environ['LOCAL_RANK']
        Runner.from_cfg(cfg)
        """
        ),
        runner="torchrun",
        nproc_per_node=8,
        rank_variables=frozenset({"RANK", "LOCAL_RANK", "WORLD_SIZE"}),
    )
    (world,) = view.worlds
    assert _value(world, "world") == 8
    assert world.config is not None
    assert isinstance(world.config.get("rank"), UnknownNode)


@pytest.mark.parametrize(
    "statement",
    ["raise RuntimeError('no auto_scale_lr')", "cfg.optim_wrapper.missing.type = 'X'"],
)
def test_a_script_that_fails_before_the_runner(tmp_path: Path, statement: str) -> None:
    view = _view(
        tmp_path,
        PARSER
        + f"cfg = Config.fromfile(parser.parse_args().config)\n{statement}\nRunner.from_cfg(cfg)\n",
    )
    (world,) = view.worlds
    assert world.config is None
    assert world.ending is not None and world.ending.startswith("the entry script stops here")
    assert world.ending_span is not None and world.ending_span.line == 11
