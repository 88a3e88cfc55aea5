"""Run the real OpenMMLab entry scripts and capture the config they hand to the Runner (oracle).

Launch-aware checking reads an entry script (``tools/train.py``) statically and computes the
config the script passes to the Runner after its own changes (``cfg.launcher = args.launcher``,
``--cfg-options``, ``--amp``, ``--resume``, ...). This module is its oracle: it *runs* the real
``tools/train.py`` of mmdet 3.3.0, mmsegmentation 1.2.2 and mmpretrain 1.2.0 (from the corpus
wheels) on real configs and argument lists, and records, key by key, the config at the moment the
script creates its Runner.

How a case runs (in a worker process, never in the caller):

- ``runpy.run_path(script, run_name="__main__")`` with ``sys.argv``, the working folder, the
  environment and ``sys.path[0]`` (the script's folder) set as ``python tools/train.py ...`` would
  set them (``sys.argv[0]`` is the script's absolute path, as runpy sets it: argparse's
  messages still say ``train.py``); all four are put back after each case. The script file is
  not modified.
- Each way into a Runner is trapped for the length of the case: ``Runner.from_cfg``,
  ``FlexibleRunner.from_cfg``, ``Runner(...)``/``FlexibleRunner(...)`` and ``build`` on any
  registry whose root is MMEngine's ``RUNNERS`` (mmseg's script uses its own child registry,
  ``mmseg.registry.RUNNERS``; mmdet's and mmpretrain's use MMEngine's).
  The trap records ``plain(cfg.to_dict())`` and raises a private ``BaseException`` that ends the
  script there, so no Runner is built, nothing is trained and no work_dir is created.
- Outcome per case: ``("ok", cfg as plain data)``; ``("error", "ExceptionType: first line")``
  when the script fails before a Runner (for ``SystemExit`` with a non-zero code, e.g. argparse's
  exit 2: ``"SystemExit: 2: <last line of stderr>"``); ``("no-runner", how it ended)`` when it
  returns, or exits with code 0/None, without creating one. For ``Runner(...)`` called directly
  the value is the constructor's arguments by name, as plain data. A case past its time limit
  ends as ``("error", "_CaseTimeout: the case ran past N s")``.

What is substituted, and why (nothing else is):

- ``mmcv``: ``import mmdet`` / ``import mmseg`` (run by mmdet's ``from mmdet.utils import ...``
  and mmseg's ``from mmseg.registry import RUNNERS``) import ``mmcv`` and assert its version.
  The full ``mmcv`` needs compiled ops; ``mmcv-lite`` is the same Python package built without
  them. Version 2.1.0 is the newest that mmdet 3.3.0 and mmseg 1.2.2 accept (``< 2.2.0``); it is
  pip-installed (``--no-deps``; its dependencies are MMEngine's) into
  ``<corpus cache>/oracle-tools``, never into the project's environment, and put on the workers'
  ``PYTHONPATH``. With it, ``mmdet/__init__.py`` (version checks included), ``mmdet.utils``,
  ``mmseg/__init__.py`` and ``mmseg.registry`` are the real packages, imported unchanged. Only
  modules that need the compiled ops (``mmcv.ops``, so ``mmdet.models``) fail, and the scripts
  import none of them.
- ``pkg_resources`` for ``pkg::`` bases, as for the config oracle (``corpus.ORACLE_TOOLS``).
- The workers import each script's top-level imports once before the cases run (a warm start, so
  that a worker pays for torch and mmdet once); the script's own import statements then find
  the same real modules.

Configs with ``custom_imports`` are not selected: the scripts load configs with
``import_custom_modules=True``, and in this corpus every such module is ``mmdet.models`` (needs
mmcv's compiled ops) or ``mmpretrain.models`` (needs mmpretrain's own runtime dependencies,
importlib_metadata, modelindex, ...), which cannot be imported here; the self-check confirms it.

Nothing is written into the corpus or site-packages (bytecode writing is off in the workers; the
self-check compares the corpus folder's listing before and after).

API: :func:`entry_cases` (the cases), :func:`run_entry_oracle` (``{label: (status, value)}``),
:func:`run_entry_oracle_outcomes` (the same with the entry point reached and the time),
:func:`oracle_env` (the workers' environment), :data:`ARG_SETS` (each argument set with what the
three scripts are expected to make of it).

    python benchmarks/entry_oracle.py                  # list the cases
    python benchmarks/entry_oracle.py --self-check     # every case, counts, checks, wall time
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import importlib
import inspect
import io
import os
import pickle
import runpy
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from corpus import PACKAGES, CorpusInfo, ensure_corpus, subprocess_env
from mmengine_oracle import plain, run_oracle, same

# The newest mmcv that mmdet 3.3.0 and mmseg 1.2.2 accept (both assert mmcv < 2.2.0).
MMCV_LITE = "2.1.0"
ENTRY_TOOLS = (f"mmcv-lite=={MMCV_LITE}",)
_CONSTRAINTS = Path(__file__).resolve().parents[1] / "constraints.txt"
_SCRIPT = Path(".mim") / "tools" / "train.py"  # inside each package of the corpus
_CASE_TIMEOUT_S = 60.0

Outcome = tuple[str, object]


@dataclass(frozen=True)
class EntryCase:
    """One launch: ``cd cwd && env ... python <script> <argv...>``."""

    script: Path  # the real entry script (absolute)
    argv: tuple[str, ...]  # sys.argv[1:] as the script sees it (after the shell), config first
    cwd: Path  # where the user runs it from: the package's repository root (``.mim``)
    env: dict[str, str]  # variables set on top of the oracle's environment
    label: str  # unique: "<package>/<config under configs/>::<argument set>"


@dataclass(frozen=True)
class EntryOutcome:
    status: str  # "ok" | "error" | "no-runner"
    value: object  # the plain cfg dict for "ok", else a one-line text
    entry_point: str | None  # e.g. "Runner.from_cfg", "mmseg::RUNNERS.build"; None if not reached
    seconds: float  # wall time of the case in its worker


# --------------------------------------------------------------------------------------------
# The environment the scripts run in


def ensure_entry_tools(corpus: CorpusInfo) -> Path:
    """``mmcv-lite`` in a cache folder of its own (see the module docstring for why)."""
    tools = corpus.root / "oracle-tools"
    if not (tools / f"mmcv_lite-{MMCV_LITE}.dist-info").is_dir():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",  # its dependencies are MMEngine's, already here; torch stays pinned
                "--target",
                str(tools),
                "-c",
                str(_CONSTRAINTS),
                *ENTRY_TOOLS,
            ],
            check=False,  # offline: mmdet's and mmseg's scripts then fail on `import mmcv`
        )
    return tools


def oracle_env(corpus: CorpusInfo, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The workers' environment: the corpus, pkg_resources and mmcv-lite importable."""
    env = subprocess_env(corpus, {"PATH": "/usr/bin:/bin"} if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(ensure_entry_tools(corpus))])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # importing the corpus packages must not write there
    return env


# --------------------------------------------------------------------------------------------
# Argument sets: what users pass, and what each package's script is expected to do with it


@dataclass(frozen=True)
class ArgSet:
    """Arguments after the config path. ``expect`` holds dotted keys (list indices as numbers)
    and the values the captured cfg must have, per package ("*" for all); ``errors`` the start
    of the expected error per package. ``needs`` is a dotted key that must be a list of at least
    that many items in the loaded config for the set to apply to it."""

    name: str
    args: tuple[str, ...]
    expect: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    needs: tuple[str, int] | None = None
    entry_points: Mapping[str, str] = field(default_factory=dict)  # per package, "*" for all

    def expected(self, package: str) -> dict[str, object]:
        return {**self.expect.get("*", {}), **self.expect.get(package, {})}


_UNRECOGNIZED = "SystemExit: 2: "  # argparse: "train.py: error: unrecognized arguments: ..."
_AMP = {"optim_wrapper.type": "AmpOptimWrapper"}

COMMON_SETS: tuple[ArgSet, ...] = (
    ArgSet("none", (), {"*": {"launcher": "none"}, "mmseg": {"resume": False}}),
    ArgSet(
        "amp",
        ("--amp",),
        {"*": _AMP, "mmdet": {"optim_wrapper.loss_scale": "dynamic"}},
    ),
    ArgSet(
        "auto-scale-lr",
        ("--auto-scale-lr",),
        {"*": {"auto_scale_lr.enable": True}},
        errors={"mmseg": _UNRECOGNIZED},
    ),
    ArgSet(
        "resume",
        ("--resume",),
        {"*": {"resume": True}, "mmdet": {"load_from": None}, "mmpretrain": {"load_from": None}},
    ),
    ArgSet(
        "resume-ckpt",
        ("--resume", "some/ckpt.pth"),
        {"*": {"resume": True, "load_from": "some/ckpt.pth"}},
        errors={"mmseg": _UNRECOGNIZED},  # mmseg's --resume is a flag: the path is left over
    ),
    ArgSet("work-dir", ("--work-dir", "work_dirs/x"), {"*": {"work_dir": "work_dirs/x"}}),
    ArgSet("launcher-pytorch", ("--launcher", "pytorch"), {"*": {"launcher": "pytorch"}}),
    ArgSet("launcher-slurm-eq", ("--launcher=slurm",), {"*": {"launcher": "slurm"}}),
    ArgSet("local-rank", ("--local-rank", "3", "--launcher", "mpi"), {"*": {"launcher": "mpi"}}),
    ArgSet(
        "opt-int",
        ("--cfg-options", "train_dataloader.batch_size=1"),
        {"*": {"train_dataloader.batch_size": 1}},
    ),
    ArgSet(
        "opt-list",
        ("--cfg-options", "model.data_preprocessor.mean=[1,2,3]"),
        {"*": {"model.data_preprocessor.mean": [1, 2, 3]}},
    ),
    ArgSet(
        "opt-tuple", ("--cfg-options", "img_scale=(1333,800)"), {"*": {"img_scale": (1333, 800)}}
    ),
    ArgSet("opt-commas", ("--cfg-options", "gpu_ids=0,1,2"), {"*": {"gpu_ids": [0, 1, 2]}}),
    ArgSet(
        "opt-nested",
        ("--cfg-options", "img_scales=[(1333,800),(666,400)]"),
        {"*": {"img_scales": [(1333, 800), (666, 400)]}},
    ),
    ArgSet(
        "opt-several",
        (
            "--cfg-options",
            "model.backbone.depth=50",
            "env_cfg.cudnn_benchmark=True",
            "train_dataloader.batch_size=4",
        ),
        {
            "*": {
                "model.backbone.depth": 50,
                "env_cfg.cudnn_benchmark": True,
                "train_dataloader.batch_size": 4,
            }
        },
    ),
    ArgSet("opt-none", ("--cfg-options", "load_from=None"), {"*": {"load_from": None}}),
    ArgSet(
        "opt-true",
        ("--cfg-options", "find_unused_parameters=true", "env_cfg.cudnn_benchmark=FALSE"),
        {"*": {"find_unused_parameters": True, "env_cfg.cudnn_benchmark": False}},
    ),
    ArgSet(
        "opt-float-str",
        (
            "--cfg-options",
            "optim_wrapper.optimizer.lr=1e-4",
            "model.backbone.frozen_stages=-1",
            "env_cfg.dist_cfg.backend=gloo",
        ),
        {
            "*": {
                "optim_wrapper.optimizer.lr": 1e-4,
                "model.backbone.frozen_stages": -1,
                "env_cfg.dist_cfg.backend": "gloo",
            }
        },
    ),
    ArgSet(
        # DictAction strips quotes around a value and deletes every space inside it.
        "opt-quotes-spaces",
        (
            "--cfg-options",
            "work_dir='work_dirs/quoted'",
            "train_dataloader.dataset.data_root=my data/",
        ),
        {"*": {"work_dir": "work_dirs/quoted", "train_dataloader.dataset.data_root": "mydata/"}},
    ),
    ArgSet(
        "opt-pipeline-index",
        ("--cfg-options", "train_pipeline.0.type=LoadImageFromNDArray"),
        {"*": {"train_pipeline.0.type": "LoadImageFromNDArray"}},
        needs=("train_pipeline", 1),
    ),
    ArgSet(
        "opt-dataset-pipeline-index",
        ("--cfg-options", "train_dataloader.dataset.pipeline.1.type=RandomFlip"),
        {"*": {"train_dataloader.dataset.pipeline.1.type": "RandomFlip"}},
        needs=("train_dataloader.dataset.pipeline", 2),
    ),
    ArgSet(
        "opt-index-out-of-range",
        ("--cfg-options", "train_pipeline.99.type=LoadImageFromNDArray"),
        errors={"*": 'KeyError: "Index 99 exceeds the length of list'},
        needs=("train_pipeline", 1),
    ),
    ArgSet(
        "opt-delete",
        (
            "--cfg-options",
            "optim_wrapper._delete_=True",
            "optim_wrapper.type=OptimWrapper",
            "optim_wrapper.optimizer.type=SGD",
            "optim_wrapper.optimizer.lr=0.01",
        ),
        {
            "*": {
                "optim_wrapper": {"type": "OptimWrapper", "optimizer": {"type": "SGD", "lr": 0.01}}
            }
        },
        needs=("optim_wrapper", 0),
    ),
    ArgSet(
        "opt-twice",
        ("--cfg-options", "train_dataloader.batch_size=2", "--cfg-options", "default_scope=x"),
        {"*": {"train_dataloader.batch_size": 2, "default_scope": "x"}},
    ),
    ArgSet(
        "opt-no-equals",
        ("--cfg-options", "train_dataloader.batch_size"),
        errors={"*": "ValueError: not enough values to unpack"},
    ),
    ArgSet(
        # runner_type sends every script through a RUNNERS registry: mmseg's own, MMEngine's.
        "opt-runner-type",
        ("--cfg-options", "runner_type=Runner"),
        {"*": {"runner_type": "Runner"}},
        entry_points={"*": "mmengine::RUNNERS.build", "mmseg": "mmseg::RUNNERS.build"},
    ),
    ArgSet(
        "launcher-vs-options",
        ("--launcher", "pytorch", "--cfg-options", "launcher=slurm"),
        {"*": {"launcher": "slurm"}},  # every script merges the options after setting it
    ),
    ArgSet(
        "work-dir-vs-options",
        ("--work-dir", "work_dirs/cli", "--cfg-options", "work_dir=work_dirs/opt"),
        {"*": {"work_dir": "work_dirs/cli"}, "mmpretrain": {"work_dir": "work_dirs/opt"}},
    ),
    ArgSet(
        "amp-vs-options",
        ("--amp", "--cfg-options", "optim_wrapper.type=OptimWrapper"),
        {"*": _AMP, "mmpretrain": {"optim_wrapper.type": "OptimWrapper"}},
    ),
    ArgSet(
        "resume-vs-options",
        ("--resume", "--cfg-options", "resume=False"),
        {"*": {"resume": True}, "mmpretrain": {"resume": False}},
    ),
    ArgSet(
        "combined",
        (
            "--launcher",
            "pytorch",
            "--amp",
            "--resume",
            "--work-dir",
            "work_dirs/x",
            "--cfg-options",
            "env_cfg.dist_cfg.backend=gloo",
        ),
        {
            "*": {
                "launcher": "pytorch",
                "resume": True,
                "work_dir": "work_dirs/x",
                "env_cfg.dist_cfg.backend": "gloo",
                **_AMP,
            }
        },
    ),
    ArgSet(
        # argparse takes any unambiguous prefix of a long option.
        "abbreviations",
        (
            "--launch",
            "pytorch",
            "--work",
            "work_dirs/abbr",
            "--cfg",
            "train_dataloader.batch_size=3",
        ),
        {
            "*": {
                "launcher": "pytorch",
                "work_dir": "work_dirs/abbr",
                "train_dataloader.batch_size": 3,
            }
        },
    ),
    ArgSet(
        "no-validate",
        ("--no-validate",),
        {"mmpretrain": {"val_cfg": None, "val_dataloader": None, "val_evaluator": None}},
        errors={"mmdet": _UNRECOGNIZED, "mmseg": _UNRECOGNIZED},
    ),
    ArgSet(
        "launcher-invalid",
        ("--launcher", "gpu"),
        errors={"*": "SystemExit: 2: train.py: error: argument --launcher: invalid choice"},
    ),
)

MMPRETRAIN_SETS: tuple[ArgSet, ...] = (
    ArgSet("no-pin-memory", ("--no-pin-memory",), {"*": {"train_dataloader.pin_memory": False}}),
    ArgSet(
        "no-persistent-workers",
        ("--no-persistent-workers",),
        {"*": {"train_dataloader.persistent_workers": False}},
    ),
    ArgSet(
        "mmpretrain-flags",
        ("--no-validate", "--no-pin-memory", "--no-persistent-workers", "--auto-scale-lr"),
        {
            "*": {
                "val_dataloader": None,
                "train_dataloader.pin_memory": False,
                "train_dataloader.persistent_workers": False,
                "auto_scale_lr.enable": True,
            }
        },
    ),
    ArgSet(
        "ambiguous-prefix",
        ("--no-p",),
        errors={"*": "SystemExit: 2: train.py: error: ambiguous option: --no-p"},
    ),
)

ARG_SETS: dict[str, ArgSet] = {s.name: s for s in (*COMMON_SETS, *MMPRETRAIN_SETS)}


def arg_sets_for(package: str) -> tuple[ArgSet, ...]:
    # mmpretrain's own flags first, so that they come round as often as the common ones.
    return (MMPRETRAIN_SETS if package == "mmpretrain" else ()) + COMMON_SETS


# Launches without a config of the corpus: the same for every config, one case per package.
_NO_CONFIG_CASES: dict[str, tuple[tuple[str, ...], str]] = {
    "no-config": ((), "SystemExit: 2: train.py: error: the following arguments are required"),
    "missing-config": (("configs/does_not_exist.py",), "FileNotFoundError: "),
}


@dataclass(frozen=True)
class Probe:
    """A script branch that only some configs reach (e.g. mmdet's RuntimeError for
    ``--auto-scale-lr`` without ``auto_scale_lr.enable``). ``hint`` (a substring of the config's
    path under ``configs/`` or of its text) finds candidates cheaply; ``reaches`` decides on the
    config MMEngine loaded. The first ``count`` configs that reach it get the argument sets."""

    package: str
    hint: str
    reaches: Callable[[dict[str, object]], bool]
    sets: tuple[str, ...]
    count: int = 2


def _has(path: str) -> Callable[[dict[str, object]], bool]:
    return lambda cfg: _lookup(cfg, path) is not _MISSING


def _lacks(path: str) -> Callable[[dict[str, object]], bool]:
    return lambda cfg: _lookup(cfg, path) is _MISSING


PROBES: tuple[Probe, ...] = (
    # mmdet raises RuntimeError: auto_scale_lr without `enable`, or none at all.
    Probe(
        "mmdet",
        "auto_scale_lr = dict(base_batch_size",
        _lacks("auto_scale_lr.enable"),
        ("auto-scale-lr",),
    ),
    Probe("mmdet", "_tta.py", _lacks("auto_scale_lr"), ("auto-scale-lr",), count=1),
    # No optim_wrapper (test-time-augmentation configs): `cfg.optim_wrapper.type = ...` fails.
    Probe("mmdet", "_tta.py", _lacks("optim_wrapper"), ("amp",)),
    # A pretrained checkpoint in load_from: --resume replaces it (with None or the path).
    Probe(
        "mmdet",
        "load_from = '",
        lambda c: isinstance(c.get("load_from"), str),
        ("resume", "resume-ckpt", "none"),
    ),
    # Already AmpOptimWrapper: mmseg only warns and leaves it (no loss_scale added).
    Probe(
        "mmseg",
        "AmpOptimWrapper",
        lambda c: _lookup(c, "optim_wrapper.type") == "AmpOptimWrapper",
        ("amp", "none"),
    ),
    # runner_type: the scripts go through RUNNERS.build (FlexibleRunner); DeepSpeed + --amp.
    Probe(
        "mmpretrain",
        "runner_type",
        _has("runner_type"),
        ("none", "amp", "launcher-pytorch"),
        count=3,
    ),
    # No auto_scale_lr: mmpretrain's `cfg.auto_scale_lr.enable = True` fails.
    Probe("mmpretrain", "simclr/", _lacks("auto_scale_lr"), ("auto-scale-lr", "none")),
    # No validation in the config: --no-validate and the dataloader defaults.
    Probe(
        "mmpretrain",
        "mae/",
        lambda c: c.get("val_dataloader") is None,
        ("no-validate", "mmpretrain-flags"),
    ),
)


# --------------------------------------------------------------------------------------------
# Case selection


_MISSING = object()


def _lookup(cfg: object, dotted: str) -> object:
    """``cfg`` at a dotted key whose numeric parts index lists; ``_MISSING`` if absent."""
    node = cfg
    for part in dotted.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list | tuple) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _applies(arg_set: ArgSet, cfg: dict[str, object]) -> bool:
    if arg_set.needs is None:
        return True
    path, length = arg_set.needs
    value = _lookup(cfg, path)
    if length == 0:
        return value is not _MISSING
    return isinstance(value, list) and len(value) >= length


def _golden_order(count: int) -> list[int]:
    """0..count-1 in an order whose every prefix is spread evenly over the range."""
    return sorted(range(count), key=lambda i: ((i + 0.5) * 0.6180339887) % 1.0)


def _spread(leaves: Sequence[Path], config_root: Path, count: int) -> list[Path]:
    """``count`` configs spread evenly over the families (first folder under configs/), one
    per family and round, and over the configs inside each family; deterministic."""
    families: dict[str, list[Path]] = {}
    for leaf in sorted(leaves):
        families.setdefault(leaf.relative_to(config_root).parts[0], []).append(leaf)
    members = [families[name] for name in sorted(families)]
    orders = [_golden_order(len(family)) for family in members]
    chosen: list[Path] = []
    for round_ in range(max(map(len, members), default=0)):
        for index in _golden_order(len(members)):
            if round_ < len(members[index]):
                chosen.append(members[index][orders[index][round_]])
                if len(chosen) == count:
                    return chosen
    return chosen


def _probe_candidates(probe: Probe, leaves: Sequence[Path], config_root: Path) -> list[Path]:
    found = []
    for leaf in leaves:
        relative = leaf.relative_to(config_root).as_posix()
        if probe.hint in relative or probe.hint in leaf.read_text(encoding="utf-8"):
            found.append(leaf)
            if len(found) == probe.count + 3:  # a few spares: the config may not reach it
                break
    return found


def _importable(modules: set[str], env: Mapping[str, str]) -> set[str]:
    """Which of ``modules`` import in the oracle's environment (one throwaway process)."""
    if not modules:
        return set()
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n        importlib.import_module(name)\n    except BaseException:\n"
        "        continue\n    print(name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, *sorted(modules)],
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=300,
        check=False,
    )
    return set(done.stdout.split())


def _custom_imports(cfg: dict[str, object]) -> set[str]:
    custom = cfg.get("custom_imports")
    if not isinstance(custom, dict):
        return set()
    imports = custom.get("imports", ())
    return {imports} if isinstance(imports, str) else set(imports)


def _loadable(
    paths: Sequence[Path], corpus: CorpusInfo
) -> tuple[dict[Path, dict[str, object]], set[str]]:
    """The configs MMEngine's ``Config.fromfile`` loads, with their values (the config oracle),
    less those with ``custom_imports`` (whose modules are returned). The scripts load configs
    with ``import_custom_modules=True``, and every such module in this corpus needs what is not
    here (``mmdet.models``: mmcv's compiled ops; ``mmpretrain.models``: mmpretrain's own
    dependencies). Leaving them all out keeps the selection independent of the oracle's tools;
    the self-check confirms that none of those modules imports."""
    loaded = run_oracle(paths, subprocess_env(corpus, {"PATH": "/usr/bin:/bin"}))
    configs = {
        Path(path): value
        for path, (status, value) in loaded.items()
        if status == "ok" and isinstance(value, dict)
    }
    skipped = set().union(*map(_custom_imports, configs.values()))
    return {p: cfg for p, cfg in configs.items() if not _custom_imports(cfg)}, skipped


def _case(corpus: CorpusInfo, config: Path, arg_set: ArgSet) -> EntryCase:
    package = corpus.package_of(config)
    repo = corpus.site / package / ".mim"
    relative = config.relative_to(repo)
    under_configs = config.relative_to(repo / "configs").as_posix()
    return EntryCase(
        script=corpus.site / package / _SCRIPT,
        argv=(relative.as_posix(), *arg_set.args),
        cwd=repo,
        env={},
        label=f"{package}/{under_configs}::{arg_set.name}",
    )


def _rotation_cases(
    corpus: CorpusInfo, package: str, configs: Mapping[Path, dict[str, object]], per_config: int
) -> list[EntryCase]:
    """Every config gets ``per_config`` argument sets, taken in turn from a queue; a set that
    does not apply to a config waits at the front for the next one."""
    queue = deque(arg_sets_for(package))
    cases = []
    for config in configs:
        taken: list[ArgSet] = []
        for arg_set in list(queue):
            if len(taken) == per_config:
                break
            if _applies(arg_set, configs[config]):
                taken.append(arg_set)
        for arg_set in taken:
            queue.remove(arg_set)
            queue.append(arg_set)
            cases.append(_case(corpus, config, arg_set))
    return cases


def _probe_cases(
    corpus: CorpusInfo, probe: Probe, candidates: Sequence[Path], loaded: Mapping[Path, dict]
) -> list[EntryCase]:
    reaching = [path for path in candidates if path in loaded and probe.reaches(loaded[path])]
    return [
        _case(corpus, config, ARG_SETS[name])
        for config in reaching[: probe.count]
        for name in probe.sets
    ]


def _no_config_cases(corpus: CorpusInfo) -> list[EntryCase]:
    cases = []
    for package in PACKAGES:
        repo = corpus.site / package / ".mim"
        for name, (argv, _) in _NO_CONFIG_CASES.items():
            script = corpus.site / package / _SCRIPT
            cases.append(EntryCase(script, argv, repo, {}, f"{package}/-::{name}"))
    return cases


def entry_cases(corpus: CorpusInfo, minimum: int = 200, per_config: int = 3) -> list[EntryCase]:
    """At least ``minimum`` real (config x arguments) launches of the three ``tools/train.py``,
    spread over packages and config families, each with its argv as a user passes it.

    Deterministic for a given corpus. Each selected config is one that MMEngine's
    ``Config.fromfile`` loads (checked with the config oracle, ~10 s); it gets ``per_config``
    argument sets in turn from :func:`arg_sets_for`. :data:`PROBES` add the configs that reach
    branches few configs reach; a few launches need no config at all.
    """
    return select_cases(corpus, minimum, per_config).cases


@dataclass(frozen=True)
class Selection:
    cases: list[EntryCase]
    skipped_imports: frozenset[str]  # the custom_imports of the configs left out


@functools.lru_cache(maxsize=4)
def select_cases(corpus: CorpusInfo, minimum: int = 200, per_config: int = 3) -> Selection:
    """:func:`entry_cases`, with the custom imports that kept configs out."""
    extras = len(_NO_CONFIG_CASES) * len(PACKAGES) + sum(p.count * len(p.sets) for p in PROBES)
    # A margin over the minimum: some argument sets fail on some configs by design.
    per_package = -(-max(minimum * 6 // 5 - extras, 0) // (per_config * len(PACKAGES)))
    rotation: dict[str, list[Path]] = {}
    probes: dict[Probe, list[Path]] = {}
    for package, config_root in zip(PACKAGES, corpus.config_roots, strict=True):
        leaves = [leaf for leaf in corpus.leaves if corpus.package_of(leaf) == package]
        # Spares: a few configs MMEngine cannot load, or that need custom imports, drop out.
        rotation[package] = _spread(leaves, config_root, per_package + 4)
        for probe in (p for p in PROBES if p.package == package):
            probes[probe] = _probe_candidates(probe, leaves, config_root)
    pool = sorted({path for paths in (*rotation.values(), *probes.values()) for path in paths})
    loaded, skipped = _loadable(pool, corpus)
    cases: dict[str, EntryCase] = {}
    for package, paths in rotation.items():
        configs = {path: loaded[path] for path in paths if path in loaded}
        chosen = dict(list(configs.items())[:per_package])
        for case in _rotation_cases(corpus, package, chosen, per_config):
            cases.setdefault(case.label, case)
    for probe, candidates in probes.items():
        for case in _probe_cases(corpus, probe, candidates, loaded):
            cases.setdefault(case.label, case)
    for case in _no_config_cases(corpus):
        cases.setdefault(case.label, case)
    return Selection(list(cases.values()), frozenset(skipped))


# --------------------------------------------------------------------------------------------
# Running the cases (caller side)


def run_entry_oracle(
    cases: Sequence[EntryCase],
    env: Mapping[str, str] | None = None,
    workers: int = 2,
    timeout_s: float = _CASE_TIMEOUT_S,
) -> dict[str, Outcome]:
    """``(status, value)`` per case label; see the module docstring for the statuses."""
    outcomes = run_entry_oracle_outcomes(cases, env, workers, timeout_s)
    return {label: (outcome.status, outcome.value) for label, outcome in outcomes.items()}


def run_entry_oracle_outcomes(
    cases: Sequence[EntryCase],
    env: Mapping[str, str] | None = None,
    workers: int = 2,
    timeout_s: float = _CASE_TIMEOUT_S,
) -> dict[str, EntryOutcome]:
    """As :func:`run_entry_oracle`, with the entry point that was reached and each case's time.

    ``env`` is the workers' whole environment (default: :func:`oracle_env` of the corpus).
    """
    if env is None:
        env = oracle_env(ensure_corpus())
    items = [
        (case.label, str(case.script), case.argv, str(case.cwd), dict(case.env), timeout_s)
        for case in cases
    ]
    with tempfile.TemporaryDirectory() as scratch:
        source, out = Path(scratch) / "cases.pickle", Path(scratch) / "outcomes.pickle"
        source.write_bytes(pickle.dumps(items))
        subprocess.run(
            [sys.executable, __file__, "--worker", str(source), str(out), str(workers)],
            check=True,
            env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
            cwd=scratch,
            stdout=subprocess.DEVNULL,
            timeout=timeout_s * len(items) / max(workers, 1) + 300,  # a hung pool ends here
        )
        raw: list[tuple[str, str, object, str | None, float]] = pickle.loads(out.read_bytes())
    by_label = {label: EntryOutcome(*rest) for label, *rest in raw}
    return {case.label: by_label[case.label] for case in cases}


# --------------------------------------------------------------------------------------------
# Worker side: traps on the ways into a Runner, one case at a time


class _RunnerReached(BaseException):  # the end of a successful case, not an error
    """Raised by a trap; a BaseException so that a script's ``except Exception`` lets it by."""

    def __init__(self, entry_point: str, value: object) -> None:
        super().__init__(entry_point)
        self.entry_point = entry_point
        self.value = value


class _CaseTimeout(BaseException):  # raised by the timer: ends the case
    pass


def _plain_cfg(value: object) -> object:
    to_dict = getattr(value, "to_dict", None)  # Config and ConfigDict
    return plain(to_dict() if callable(to_dict) else value)


def _from_cfg_trap() -> classmethod:
    def from_cfg(cls: type, cfg: object) -> None:
        raise _RunnerReached(f"{cls.__name__}.from_cfg", _plain_cfg(cfg))

    return classmethod(from_cfg)


def _init_trap(original: Callable[..., None]) -> Callable[..., None]:
    signature = inspect.signature(original)

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        arguments = dict(signature.bind(self, *args, **kwargs).arguments)
        arguments.pop("self", None)
        value = {name: _plain_cfg(item) for name, item in arguments.items()}
        raise _RunnerReached(f"{type(self).__name__}()", value)

    return __init__


def _build_trap(original: Callable[..., object], runners: object) -> Callable[..., object]:
    def build(self: object, cfg: object, *args: object, **kwargs: object) -> object:
        registry: object = self
        while registry is not None:  # a RUNNERS registry, or a child of MMEngine's
            if registry is runners:
                scope = getattr(self, "scope", "?")
                raise _RunnerReached(f"{scope}::RUNNERS.build", _plain_cfg(cfg))
            registry = getattr(registry, "parent", None)
        return original(self, cfg, *args, **kwargs)

    return build


@contextlib.contextmanager
def _runner_traps() -> Iterator[None]:
    """Every way into a Runner trapped; the originals put back afterwards, whatever happens."""
    from mmengine.registry import RUNNERS, Registry
    from mmengine.runner import FlexibleRunner, Runner

    targets = [(cls, name) for cls in (Runner, FlexibleRunner) for name in ("from_cfg", "__init__")]
    targets.append((Registry, "build"))
    saved = [(owner, name, owner.__dict__[name]) for owner, name in targets]
    try:
        for owner, name, original in saved:
            if name == "from_cfg":
                trap: object = _from_cfg_trap()
            elif name == "__init__":
                trap = _init_trap(original)
            else:
                trap = _build_trap(original, RUNNERS)
            setattr(owner, name, trap)
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise _CaseTimeout(f"the case ran past {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _launch_state(
    script: str, argv: Sequence[str], cwd: str, env: Mapping[str, str]
) -> Iterator[None]:
    """``sys.argv``, ``sys.path[0]``, the working folder and the environment as
    ``cd cwd && env ... python script argv...`` has them; all put back afterwards."""
    saved_argv, saved_path, saved_cwd = sys.argv, sys.path[:], os.getcwd()
    saved_env = dict(os.environ)
    try:
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = [script, *argv]  # runpy sets argv[0] to the script's path anyway
        sys.path.insert(0, os.path.dirname(script))
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()  # the scripts set LOCAL_RANK
        os.environ.update(saved_env)
        sys.argv = saved_argv
        sys.path[:] = saved_path


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


def _exit_outcome(exit_: SystemExit, stderr: str) -> tuple[str, object]:
    code = exit_.code
    if code is None or code == 0:
        return "no-runner", f"SystemExit: {code}"
    lines = stderr.strip().splitlines()
    if isinstance(code, str):  # sys.exit("message"): Python prints it and exits with 1
        return "error", f"SystemExit: {code}"
    return "error", f"SystemExit: {code}: {lines[-1] if lines else ''}"


def _run_case(
    item: tuple[str, str, tuple[str, ...], str, dict[str, str], float],
) -> tuple[str, str, object, str | None, float]:
    label, script, argv, cwd, env, timeout_s = item
    start = time.perf_counter()
    stderr = io.StringIO()
    entry_point: str | None = None
    try:
        with (
            _launch_state(script, argv, cwd, env),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(stderr),
            warnings.catch_warnings(),
            _runner_traps(),
            _time_limit(timeout_s),
        ):
            warnings.simplefilter("ignore")
            runpy.run_path(script, run_name="__main__")
        status, value = "no-runner", "the script returned"
    except _RunnerReached as reached:
        status, value, entry_point = "ok", reached.value, reached.entry_point
    except SystemExit as exit_:
        status, value = _exit_outcome(exit_, stderr.getvalue())
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # whatever the script raises is its outcome
        status, value = "error", _describe(error)
    return label, status, value, entry_point, time.perf_counter() - start


def _warm_imports(scripts: set[str]) -> None:
    """Import each script's top-level imports once, before the workers fork."""
    for script in sorted(scripts):
        tree = ast.parse(Path(script).read_text(encoding="utf-8"))
        for node in tree.body:
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                with contextlib.suppress(Exception):  # the script meets the same error itself
                    importlib.import_module(name)


def _worker_main(source: str, out: str, workers: int) -> None:
    import logging
    from multiprocessing import get_context

    # The pool runs this file as the module `entry_oracle` (not `__main__`), and the values
    # hold `mmengine_oracle.Opaque`, so the pickled outcomes load back in the caller.
    import entry_oracle

    sys.dont_write_bytecode = True
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    items = pickle.loads(Path(source).read_bytes())
    entry_oracle._warm_imports({item[1] for item in items})
    # Forked workers share the warm imports; each runs many cases, one at a time.
    with get_context("fork").Pool(workers) as pool:
        outcomes = list(pool.imap_unordered(entry_oracle._run_case, items, chunksize=4))
    Path(out).write_bytes(pickle.dumps(outcomes))


# --------------------------------------------------------------------------------------------
# Self-check


def _corpus_listing(corpus: CorpusInfo) -> set[tuple[str, float]]:
    listing = set()
    for folder, _, files in os.walk(corpus.site):
        for name in files:
            path = os.path.join(folder, name)
            listing.add((path, os.stat(path).st_mtime))
    return listing


def _arg_set_of(case: EntryCase) -> str:
    return case.label.rsplit("::", 1)[1]


def _package_of(case: EntryCase) -> str:
    return case.label.split("/", 1)[0]


def _check_case(case: EntryCase, outcome: EntryOutcome) -> str | None:
    """What is wrong with an outcome, if anything, given what the argument set promises."""
    name = _arg_set_of(case)
    package = _package_of(case)
    if name in _NO_CONFIG_CASES:
        expected_error = _NO_CONFIG_CASES[name][1]
        if outcome.status != "error" or not str(outcome.value).startswith(expected_error):
            return f"expected {expected_error!r}, got {outcome.status} {outcome.value!r}"
        return None
    arg_set = ARG_SETS[name]
    error = arg_set.errors.get(package, arg_set.errors.get("*"))
    if error is not None:
        if outcome.status != "error" or not str(outcome.value).startswith(error):
            return f"expected {error!r}, got {outcome.status} {str(outcome.value)[:200]!r}"
        return None
    if outcome.status != "ok":
        return None  # a config-dependent failure; counted, and bounded by the self-check
    entry_point = arg_set.entry_points.get(package, arg_set.entry_points.get("*"))
    if entry_point is not None and outcome.entry_point != entry_point:
        return f"expected the Runner through {entry_point}, got {outcome.entry_point}"
    for key, value in arg_set.expected(package).items():
        found = _lookup(outcome.value, key)
        if found is _MISSING or plain(found) != value or type(found) is not type(value):
            return f"{key}: expected {value!r}, got {found!r}"
    if isinstance(outcome.value, dict) and not outcome.value.get("work_dir"):
        return "no work_dir: every script sets one"
    return None


# The top-level keys each script sets with no arguments at all (mmpretrain: dataloader defaults).
_SCRIPT_KEYS = {
    "mmdet": {"launcher", "work_dir"},
    "mmseg": {"launcher", "work_dir", "resume"},
    "mmpretrain": {"launcher", "work_dir", "train_dataloader", "val_dataloader", "test_dataloader"},
}


def _baseline_problems(
    cases: Sequence[EntryCase], outcomes: Mapping[str, EntryOutcome], corpus: CorpusInfo
) -> list[str]:
    """With no arguments, the captured cfg is ``Config.fromfile``'s (the config oracle's), but
    for the keys the script itself sets: the harness loses and adds nothing."""
    plain_cases = [case for case in cases if _arg_set_of(case) == "none"]
    loaded = run_oracle(
        [case.cwd / case.argv[0] for case in plain_cases],
        subprocess_env(corpus, {"PATH": "/usr/bin:/bin"}),
    )
    problems = []
    for case in plain_cases:
        status, theirs = loaded[str(case.cwd / case.argv[0])]
        captured = outcomes[case.label].value
        assert status == "ok" and isinstance(theirs, dict) and isinstance(captured, dict)
        allowed = _SCRIPT_KEYS[_package_of(case)]
        changed = [k for k in {**theirs, **captured} if not same(theirs.get(k), captured.get(k))]
        if not set(changed) <= allowed or list(captured)[: len(theirs)] != list(theirs):
            problems.append(f"{case.label}: keys {sorted(set(changed) - allowed)} differ")
    return problems


def _report(cases: Sequence[EntryCase], outcomes: Mapping[str, EntryOutcome]) -> None:
    by_package: Counter[tuple[str, str]] = Counter()
    by_set: dict[str, Counter[str]] = {}
    for case in cases:
        status = outcomes[case.label].status
        by_package[(_package_of(case), status)] += 1
        by_set.setdefault(_arg_set_of(case), Counter())[status] += 1
    statuses = Counter(outcome.status for outcome in outcomes.values())
    print(f"cases: {len(cases)}; statuses: {dict(sorted(statuses.items()))}")
    for package in PACKAGES:
        counts = {s: n for (p, s), n in sorted(by_package.items()) if p == package}
        print(f"  {package}: {sum(counts.values())} cases {counts}")
    print("per argument set:")
    for name, counts in sorted(by_set.items()):
        print(f"  {name:28} {sum(counts.values()):3} {dict(sorted(counts.items()))}")
    entry_points = Counter(o.entry_point for o in outcomes.values() if o.entry_point)
    print(f"entry points: {dict(sorted(entry_points.items()))}")
    errors = Counter(str(o.value)[:90] for o in outcomes.values() if o.status == "error")
    print("errors:")
    for text, count in errors.most_common():
        print(f"  {count:3}  {text}")


def _launch_with_import_check(
    selection: Selection, env: Mapping[str, str], workers: int
) -> tuple[dict[str, EntryOutcome], set[str]]:
    """The launches, and meanwhile (its own process) which left-out custom imports import."""
    with ThreadPoolExecutor(1) as background:
        importable = background.submit(_importable, set(selection.skipped_imports), env)
        outcomes = run_entry_oracle_outcomes(selection.cases, env, workers)
        return outcomes, importable.result()


def _sanity_problems(cases: Sequence[EntryCase], outcomes: Mapping[str, EntryOutcome]) -> list[str]:
    problems = []
    for case in cases:
        outcome = outcomes[case.label]
        text = str(outcome.value) if outcome.status != "ok" else ""
        if _arg_set_of(case) == "none" and outcome.status != "ok":  # MMEngine loads each config
            problems.append(f"{case.label}: no Runner without arguments: {text}")
        if "ModuleNotFoundError" in text or "_CaseTimeout" in text:  # the set-up, not the case
            problems.append(f"{case.label}: {text}")
    return problems


def self_check(workers: int = 2) -> dict[str, EntryOutcome]:
    """Run every case; print counts; assert that the harness captured what the scripts do."""
    started = time.perf_counter()
    corpus = ensure_corpus()
    before = _corpus_listing(corpus)
    selection = select_cases(corpus)
    cases = selection.cases
    selected = time.perf_counter()
    outcomes, importable = _launch_with_import_check(selection, oracle_env(corpus), workers)
    launched = time.perf_counter()
    problems = [
        f"{case.label}: {problem}"
        for case in cases
        if (problem := _check_case(case, outcomes[case.label])) is not None
    ]
    problems += _sanity_problems(cases, outcomes)
    problems += _baseline_problems(cases, outcomes, corpus)
    _report(cases, outcomes)
    print(f"configs left out for their custom_imports: {sorted(selection.skipped_imports)}")
    print(
        f"wall time: {time.perf_counter() - started:.1f} s (selection {selected - started:.1f} s,"
        f" {len(cases)} launches on {workers} workers {launched - selected:.1f} s, checks "
        f"{time.perf_counter() - launched:.1f} s)"
    )
    ok_share = sum(o.status == "ok" for o in outcomes.values()) / len(outcomes)
    assert len(cases) >= 200, len(cases)
    assert not problems, "\n".join(problems[:30])
    assert not importable, f"custom imports that do import after all: {sorted(importable)}"
    assert _corpus_listing(corpus) == before, "a launch wrote into the corpus"
    assert ok_share >= 0.7, f"only {ok_share:.0%} of the launches reached a Runner"
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-check", action="store_true", help="run every case and check")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker", nargs=3, metavar=("CASES", "OUT", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        source, out, workers = args.worker
        _worker_main(source, out, int(workers))
    elif args.self_check:
        self_check(args.workers)
    else:
        corpus = ensure_corpus()
        for case in entry_cases(corpus):
            print(f"{case.label}: {' '.join(case.argv)}")


if __name__ == "__main__":
    main()
