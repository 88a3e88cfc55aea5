"""Helpers shared by the test modules (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
SHARED = REPO_ROOT.parent / "shared"


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> CliResult:
    """Run the real ``cfglint`` command line as a user would, and capture what it prints.

    In this process (``cfglint.cli.main``, the code path of the installed ``cfglint`` command,
    with its own session: nothing it read outlives it), with the working folder, the
    environment, ``PYTHONPATH`` and the standard streams a subprocess would have. The dry run too:
    its ranks are processes of their own either way, and it restores the signal handlers it
    sets. Output is decoded as ``text=True`` decodes a subprocess's (UTF-8, universal newlines).
    """
    words = [str(arg) for arg in args]
    # CFGLINT_TESTS_IN_SUBPROCESSES=1 runs every command as its own process (to compare, or to
    # rule the in-process runner out when a test fails).
    if os.environ.get("CFGLINT_TESTS_IN_SUBPROCESSES"):
        return run_cli_in_a_process(*words, cwd=cwd, env=env)
    return _run_in_this_process(words, cwd, env)


def run_cli_in_a_process(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> CliResult:
    """Run ``python -m cfglint`` in a subprocess: for exit codes as the shell sees them, signals,
    and what a fresh interpreter imports."""
    completed = subprocess.run(
        [sys.executable, "-m", "cfglint", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


def _run_in_this_process(
    words: list[str], cwd: Path | None, env: dict[str, str] | None
) -> CliResult:
    from cfglint.cli import main

    saved_cwd, saved_environ, saved_path = os.getcwd(), dict(os.environ), list(sys.path)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    # A subprocess's captured pipes: UTF-8 (this machine's C.UTF-8 locale), stderr with
    # backslashreplace, no terminal, stdin inherited (here: empty).
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(
        io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
            # What the interpreter would put on its import path at start-up.
            extra = [entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry]
            sys.path[1:1] = [os.path.abspath(entry) for entry in extra]
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(), out, err
        try:
            exit_code = main(words)
        except SystemExit as stop:  # argparse's --help, --version and usage errors
            code = stop.code
            if isinstance(code, str):
                err.write(code + "\n")
            exit_code = code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        sys.path[:] = saved_path
    return CliResult(exit_code, _as_text(out), _as_text(err))


def _as_text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    text = raw.getvalue().decode("utf-8", errors="strict")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def run_cli_on_a_terminal(*args: str | Path, cwd: Path, stdout_file: Path) -> tuple[int, str, str]:
    """Run ``cfglint`` with stderr on a pseudo-terminal (where progress is drawn) and stdout
    redirected to a file, as in ``cfglint ... > report.txt`` typed at a terminal.

    Returns the exit code, what was drawn on the terminal, and the file's text.
    """
    with stdout_file.open("wb") as out:
        exit_code, drawn = _run_on_a_terminal(args, cwd, None, stdout=out)
    return exit_code, drawn, stdout_file.read_text(encoding="utf-8")


def run_cli_on_a_full_terminal(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Run ``cfglint`` with stdout and stderr on one pseudo-terminal, as typed at a terminal.

    Returns the exit code and everything drawn on the terminal (escape codes included).
    """
    return _run_on_a_terminal(args, cwd, env, stdout=None)


def _run_on_a_terminal(
    args: tuple[str | Path, ...],
    cwd: Path,
    env: dict[str, str] | None,
    *,
    stdout: BinaryIO | None,
) -> tuple[int, str]:
    """``python -m cfglint`` with stderr (and stdout, unless given) on a pseudo-terminal of a
    colour terminal 100 columns wide; the exit code and what was drawn on it."""
    controller, terminal = pty.openpty()
    environment = {
        key: value for key, value in (env or os.environ).items() if key not in ("CI", "NO_COLOR")
    }
    environment.update(TERM="xterm-256color", COLUMNS="100")
    process = subprocess.Popen(
        [sys.executable, "-m", "cfglint", *map(str, args)],
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=terminal if stdout is None else stdout,
        stderr=terminal,
    )
    os.close(terminal)
    drawn = _drain(controller, process)
    return process.wait(timeout=600), drawn.decode(errors="replace")


def _drain(controller: int, process: subprocess.Popen[bytes]) -> bytes:
    drawn = b""
    while True:
        ready, _, _ = select.select([controller], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal closed: the command is gone
                break
            if not chunk:
                break
            drawn += chunk
        elif process.poll() is not None:
            break
    os.close(controller)
    return drawn


def mmengine_values(config: Path, *keys: str) -> list[object]:
    """What real MMEngine's `Config.fromfile` gives for each dotted key (`'absent'` when a
    step is missing), in a subprocess so that nothing of it stays in the test process."""
    import json

    script = (
        "import json, sys\n"
        "from mmengine.config import Config\n"
        "cfg = Config.fromfile(sys.argv[1], import_custom_modules=False).to_dict()\n"
        "out = []\n"
        "for key in sys.argv[2:]:\n"
        "    value = cfg\n"
        "    for part in key.split('.'):\n"
        "        value = value.get(part, 'absent') if isinstance(value, dict) else 'absent'\n"
        "    out.append(value)\n"
        "print(json.dumps(out))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(config), *keys],
        capture_output=True,
        text=True,
        check=True, timeout=300,
    )
    loaded = json.loads(completed.stdout)
    assert isinstance(loaded, list)
    return loaded
