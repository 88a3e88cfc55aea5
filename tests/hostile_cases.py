"""The hostile-input cases under tests/hostile/cases/: one folder per case, run as a user would.

A case folder holds the files of a small project (copied into a fresh folder; `NAME.in` is
copied as `NAME`, so that the repository's own tools never read a hostile `pyproject.toml`)
and `case.toml`,
which says how to build what cannot be committed (a FIFO, a symlink to /dev/zero, a generated
9.8 MB file, a folder nobody may enter, a GBK-encoded settings file), which commands to run,
and what must hold after each. Every command runs in its own process under a memory limit and
a timeout, so that a regression fails the test instead of hanging or exhausting CI. Used by
tests/hostile/test_cases.py and by benchmarks/bench_hostile.py (which also measures them).

`case.toml`:

    about = "the issue item this case keeps fixed"
    slow = true                   # optional: pytest -m corpus only
    drop_privileges = true        # optional: run without root's power over permissions

    [setup]
    fifos = ["b.py"]
    symlinks = { "z.py" = "/dev/zero" }
    modes = { "locked" = 0o000 }  # applied last, undone before the folder is removed
    encode = { "pyproject.toml" = "gbk" }   # re-encode a committed UTF-8 file
    old = [".a.py.k3j4h5g6.cfglint-tmp"]  # files made, or aged, a day old
    write = { "a/b/c.py" = "text" }          # files whose names cannot be committed
    generate = { "big.py" = { line = "v{i} = {i}\n", size = 9800000, head = "..." } }

    [[run]]
    args = ["check", "--target", "t20-gcu", "a.py"]
    exit = 1
    stdout = ["substring", ...]      stderr = [...]
    not_stdout = [...]               not_stderr = [...]   ("Traceback" is always refused)
    unchanged = ["a.py"]             # the same bytes as before this command
    expect = { "a.yaml" = "expected/a.yaml" }   # the file's bytes afterwards
    absent = ["gone.py"]
    hook = "delete-before-write:x.py"   # tests/hostile/hook_cli.py: cfglint with one fault
    timeout = 60

After every command no temporary file of cfglint's (`*.cfglint-tmp`, `.cfglint-*.tmp`) may be
left in the project, and its peak memory must stay under 300 MB.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = REPO_ROOT / "tests" / "hostile" / "cases"
HOOK_CLI = REPO_ROOT / "tests" / "hostile" / "hook_cli.py"
MEMORY_LIMIT = 1024**3  # address space: cfglint needs a few hundred MB; runaways need GBs
MAX_RSS_MB = 300.0  # what every command may use at its peak (the hardening issue's bound)
DEFAULT_TIMEOUT = 60.0
# Root ignores file permissions; these capabilities are what lets it.
DROPPED = "--bounding-set=-dac_override,-dac_read_search,-fowner"
SETUP_FILES = ("case.toml",)
_DAY_S = 24 * 3600


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    exit: int | None = None
    stdout: tuple[str, ...] = ()
    stderr: tuple[str, ...] = ()
    not_stdout: tuple[str, ...] = ()
    not_stderr: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    expect: dict[str, str] = field(default_factory=dict)
    absent: tuple[str, ...] = ()
    hook: str | None = None
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Case:
    name: str
    folder: Path
    about: str
    runs: tuple[Run, ...]
    setup: dict[str, object] = field(default_factory=dict)
    slow: bool = False
    drop_privileges: bool = False


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    max_rss_mb: float
    timed_out: bool


def load_cases() -> list[Case]:
    return [load_case(folder) for folder in sorted(CASES_DIR.iterdir()) if folder.is_dir()]


def load_case(folder: Path) -> Case:
    data = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    runs = tuple(
        Run(
            args=tuple(run["args"]),
            exit=run.get("exit"),
            stdout=tuple(run.get("stdout", ())),
            stderr=tuple(run.get("stderr", ())),
            not_stdout=tuple(run.get("not_stdout", ())),
            not_stderr=tuple(run.get("not_stderr", ())),
            unchanged=tuple(run.get("unchanged", ())),
            expect=dict(run.get("expect", {})),
            absent=tuple(run.get("absent", ())),
            hook=run.get("hook"),
            timeout=float(run.get("timeout", DEFAULT_TIMEOUT)),
        )
        for run in data["run"]
    )
    return Case(
        name=folder.name,
        folder=folder,
        about=data["about"],
        runs=runs,
        setup=dict(data.get("setup", {})),
        slow=bool(data.get("slow", False)),
        drop_privileges=bool(data.get("drop_privileges", False)),
    )


def can_drop_privileges() -> bool:
    """Whether a command can run without the power to ignore permissions."""
    return os.geteuid() != 0 or shutil.which("setpriv") is not None


def build(case: Case, root: Path) -> None:
    """The case's project in ``root`` (an empty folder)."""
    for path in sorted(case.folder.rglob("*")):
        relative = path.relative_to(case.folder)
        if relative.parts[0] in ("expected", *SETUP_FILES) or not path.is_file():
            continue
        target = root / relative
        if target.suffix == ".in":  # `pyproject.toml.in`: tools in this repository skip it
            target = target.with_suffix("")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    setup = case.setup
    for name, text in _table(setup, "write").items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(text), encoding="utf-8")
    for name, spec in _table(setup, "generate").items():
        _generate(root / name, spec)
    for name, encoding in _table(setup, "encode").items():
        target = root / name
        target.write_bytes(target.read_text(encoding="utf-8").encode(str(encoding)))
    for name in _list(setup, "fifos"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(root / name)
    for name, points_to in _table(setup, "symlinks").items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(str(points_to), root / name)
    day_ago = time.time() - _DAY_S
    for name in _list(setup, "old"):
        target = root / name
        target.touch()
        os.utime(target, (day_ago, day_ago))
    for name, mode in _table(setup, "modes").items():
        os.chmod(root / name, int(mode))  # type: ignore[call-overload]


def teardown(case: Case, root: Path) -> None:
    """Undo what would keep the folder from being removed."""
    for name in _table(case.setup, "modes"):
        target = root / name
        if target.exists() or target.is_symlink():
            os.chmod(target, stat.S_IRWXU)


def _generate(target: Path, spec: object) -> None:
    assert isinstance(spec, dict)
    line, size = str(spec["line"]), int(spec["size"])
    parts = [str(spec.get("head", ""))]
    written = len(parts[0])
    index = 0
    while written < size:
        parts.append(line.format(i=index))
        written += len(parts[-1])
        index += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(parts) + str(spec.get("tail", "")), encoding="utf-8")


def _table(setup: dict[str, object], key: str) -> dict[str, object]:
    value = setup.get(key, {})
    assert isinstance(value, dict)
    return value


def _list(setup: dict[str, object], key: str) -> list[str]:
    value = setup.get(key, [])
    assert isinstance(value, list)
    return [str(item) for item in value]


def command(case: Case, run: Run) -> list[str]:
    if run.hook is not None:
        argv = [sys.executable, str(HOOK_CLI), run.hook, *run.args]
    else:
        argv = [sys.executable, "-m", "cfglint", *run.args]
    if case.drop_privileges and os.geteuid() == 0:
        argv = ["setpriv", DROPPED, *argv]
    return argv


# Runs the command as its own child and reports that child's rusage. On Linux a process's peak
# memory starts at its parent's resident size when it execs (the high-water mark moves into the
# new program), so a command started straight from a test process that has grown (the corpus
# tests resolve thousands of configs in-process) would report the test's memory as its own. A
# small interpreter in between keeps the measurement to the command.
_MEASURE = """
import json, os, resource, subprocess, sys
limit, report = int(sys.argv[1]), sys.argv[2]
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
child = subprocess.Popen(sys.argv[3:])
_pid, status, usage = os.wait4(child.pid, 0)
with open(report, "w") as out:
    json.dump({"maxrss": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime}, out)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def execute(case: Case, run: Run, root: Path, memory_limit: int = MEMORY_LIMIT) -> Outcome:
    """One command in ``root``, in its own process group, under the memory limit and timeout;
    its own peak memory and CPU time (``wait4`` in a small parent: this command only)."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), TMPDIR=str(root.parent / "tmp"))
    env.pop("NO_COLOR", None)
    (root.parent / "tmp").mkdir(exist_ok=True)

    out_path, err_path = root.parent / "stdout.txt", root.parent / "stderr.txt"
    usage_path = root.parent / "rusage.json"
    usage_path.unlink(missing_ok=True)
    measured = [sys.executable, "-c", _MEASURE, str(memory_limit), str(usage_path)]
    timed_out = threading.Event()
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(
            [*measured, *command(case, run)],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )

        def kill() -> None:
            timed_out.set()
            os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(run.timeout, kill)
        timer.start()
        try:
            process.wait()
        finally:
            timer.cancel()
    wall = time.monotonic() - start
    # Killed on timeout (or by the memory limit before reporting): nothing measured.
    usage = json.loads(usage_path.read_text()) if usage_path.exists() else {"maxrss": 0, "cpu": 0}
    exit_code = process.returncode  # negative: the measuring parent was killed (timeout)
    if exit_code > 128:
        exit_code = 128 - exit_code  # the command died of a signal: negative, as Popen says
    return Outcome(
        exit_code=exit_code,
        stdout=out_path.read_text(encoding="utf-8", errors="replace"),
        stderr=err_path.read_text(encoding="utf-8", errors="replace"),
        wall_s=wall,
        cpu_s=float(usage["cpu"]),
        max_rss_mb=float(usage["maxrss"]) / 1024,
        timed_out=timed_out.is_set(),
    )


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` that can be read (no FIFO, device or locked folder);
    cfglint's result cache left out."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".cfglint_cache"]
        for name in files:
            path = Path(folder) / name
            try:
                if stat.S_ISREG(os.stat(path).st_mode):
                    found[path.relative_to(root).as_posix()] = path.read_bytes()
            except OSError:
                continue
    return found


def problems(
    case: Case, run: Run, root: Path, before: dict[str, bytes], outcome: Outcome
) -> list[str]:
    """What does not hold after a command (empty: everything does)."""
    found: list[str] = []
    if outcome.timed_out:
        found.append(f"timed out after {run.timeout:.0f} s")
    if outcome.max_rss_mb > MAX_RSS_MB:
        found.append(f"peak memory {outcome.max_rss_mb:.0f} MB, over {MAX_RSS_MB:.0f} MB")
    if run.exit is not None and outcome.exit_code != run.exit:
        found.append(f"exit code {outcome.exit_code}, expected {run.exit}")
    for text in run.stdout:
        if text not in outcome.stdout:
            found.append(f"stdout lacks {text!r}")
    for text in run.stderr:
        if text not in outcome.stderr:
            found.append(f"stderr lacks {text!r}")
    for text in run.not_stdout:
        if text in outcome.stdout:
            found.append(f"stdout has {text!r}")
    for text in (*run.not_stderr, "Traceback"):
        if text in outcome.stderr:
            found.append(f"stderr has {text!r}")
    after = snapshot(root)
    for name in run.unchanged:
        if after.get(name) != before.get(name):
            found.append(f"{name} changed")
    for name, expected in run.expect.items():
        wanted = (case.folder / expected).read_bytes()
        if after.get(name) != wanted:
            found.append(f"{name} is not {expected}")
    for name in run.absent:
        if os.path.lexists(root / name):
            found.append(f"{name} exists")
    leftovers = [
        name
        for name in after
        if name.endswith(".cfglint-tmp") or Path(name).name.startswith(".cfglint-")
    ]
    if leftovers:
        found.append(f"temporary files left: {leftovers}")
    return found
