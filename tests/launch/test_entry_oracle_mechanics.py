"""The entry oracle's harness on small entry scripts of our own (no corpus needed).

Each script is run the way ``benchmarks/entry_oracle.py`` runs the real ``tools/train.py``:
these tests pin what it captures at each way into a Runner, how failures read, and that one
launch leaves nothing behind for the next one in the same worker.
"""

from __future__ import annotations

from pathlib import Path

import entry_oracle
import pytest
from entry_oracle import EntryCase, EntryOutcome, run_entry_oracle_outcomes

_PRELUDE = """
import os, sys
from mmengine.config import Config
from mmengine.registry import MODELS, RUNNERS, Registry
from mmengine.runner import FlexibleRunner, Runner
"""

SCRIPTS = {
    # Reports what the launch looks like from inside, then leaves traces for the next case.
    "from_cfg": """
cfg = Config(dict(argv=sys.argv[1:], cwd=os.getcwd(), leak=os.environ.get("LEAK"),
                  extra=os.environ.get("EXTRA"), path0=sys.path[0]))
os.environ["LEAK"] = "1"
try:
    Runner.from_cfg(cfg)
except Exception:
    print("a script's `except Exception` must not swallow the capture")
raise RuntimeError("not reached")
""",
    "child_registry": """
CHILD = Registry("runner", parent=RUNNERS, scope="mypkg")
CHILD.build(Config(dict(runner_type="Runner", tuple_value=(1, 2))))
""",
    "other_registry": "MODELS.build(dict(type='NoSuchModel'))\n",
    "direct": "Runner(model=None, work_dir='w', cfg=Config(dict(a=1)))\n",
    "flexible": "FlexibleRunner.from_cfg(Config(dict(strategy=dict(type='DDPStrategy'))))\n",
    "argparse": """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--launcher", choices=["none", "pytorch"])
parser.parse_args()
""",
    "exit0": "sys.exit(0)\n",
    "returns": "x = 1\n",
    "sleeps": "import time\ntime.sleep(30)\n",
}


def _case(folder: Path, name: str, argv: tuple[str, ...] = (), **env: str) -> EntryCase:
    return EntryCase(folder / f"{name}.py", argv, folder, dict(env), label=f"{name}:{argv}")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EntryOutcome]:
    folder = tmp_path_factory.mktemp("scripts")
    for name, body in SCRIPTS.items():
        (folder / f"{name}.py").write_text(_PRELUDE + body, encoding="utf-8")
    cases = [
        _case(folder, "from_cfg", ("a.py", "--x"), EXTRA="e"),
        _case(folder, "from_cfg", ("b.py",)),  # same worker: sees no trace of the first
        *(_case(folder, name) for name in SCRIPTS if name not in ("from_cfg", "argparse")),
        _case(folder, "argparse", ("--launcher", "gpu")),
    ]
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    return run_entry_oracle_outcomes(cases, env, workers=1, timeout_s=3)


def test_from_cfg_captures_the_plain_cfg_as_the_launch_sets_it(
    outcomes: dict[str, EntryOutcome], tmp_path_factory: pytest.TempPathFactory
) -> None:
    first = outcomes["from_cfg:('a.py', '--x')"]
    assert first.status == "ok" and first.entry_point == "Runner.from_cfg"
    assert isinstance(first.value, dict)
    assert first.value["argv"] == ["a.py", "--x"]
    assert first.value["extra"] == "e" and first.value["leak"] is None
    assert Path(first.value["cwd"]).name.startswith("scripts")
    assert first.value["path0"] == first.value["cwd"]  # the script's folder, as `python x.py`


def test_the_next_launch_sees_nothing_of_the_last(outcomes: dict[str, EntryOutcome]) -> None:
    second = outcomes["from_cfg:('b.py',)"]
    assert second.status == "ok"
    assert isinstance(second.value, dict)
    assert second.value["leak"] is None and second.value["extra"] is None


def test_every_way_into_a_runner_is_trapped(outcomes: dict[str, EntryOutcome]) -> None:
    child = outcomes["child_registry:()"]
    assert (child.status, child.entry_point) == ("ok", "mypkg::RUNNERS.build")
    assert child.value == {"runner_type": "Runner", "tuple_value": (1, 2)}
    direct = outcomes["direct:()"]
    assert (direct.status, direct.entry_point) == ("ok", "Runner()")
    assert direct.value == {"model": None, "work_dir": "w", "cfg": {"a": 1}}
    flexible = outcomes["flexible:()"]
    assert (flexible.status, flexible.entry_point) == ("ok", "FlexibleRunner.from_cfg")


def test_failures_and_endings_without_a_runner(outcomes: dict[str, EntryOutcome]) -> None:
    assert outcomes["other_registry:()"].status == "error"  # other registries build for real
    assert str(outcomes["other_registry:()"].value).startswith("KeyError: ")
    bad = outcomes["argparse:('--launcher', 'gpu')"]
    assert bad.status == "error"
    assert str(bad.value).startswith("SystemExit: 2: argparse.py: error: argument --launcher")
    exit0 = outcomes["exit0:()"]
    assert (exit0.status, exit0.value) == ("no-runner", "SystemExit: 0")
    assert outcomes["returns:()"].status == "no-runner"
    sleeps = outcomes["sleeps:()"]
    assert sleeps.status == "error" and "ran past 3 s" in str(sleeps.value)


def test_the_short_api_gives_status_and_value(monkeypatch: pytest.MonkeyPatch) -> None:
    full = {"s": EntryOutcome("ok", {"k": [1]}, "Runner.from_cfg", 0.1)}
    monkeypatch.setattr(entry_oracle, "run_entry_oracle_outcomes", lambda *args: full)
    case = EntryCase(Path("s.py"), (), Path("."), {}, label="s")
    assert entry_oracle.run_entry_oracle([case], {}) == {"s": ("ok", {"k": [1]})}
