"""Helpers shared by the test modules (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

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
    """Run the real ``cfglint`` command line in a subprocess, the way a user would."""
    completed = subprocess.run(
        [sys.executable, "-m", "cfglint", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


def run_cli_on_a_terminal(*args: str | Path, cwd: Path, stdout_file: Path) -> tuple[int, str, str]:
    """Run ``cfglint`` with stderr on a pseudo-terminal (where progress is drawn) and stdout
    redirected to a file, as in ``cfglint ... > report.txt`` typed at a terminal.

    Returns the exit code, what was drawn on the terminal, and the file's text.
    """
    controller, terminal = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "NO_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="100")
    with stdout_file.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "cfglint", *map(str, args)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=terminal,
        )
    os.close(terminal)
    drawn = _drain(controller, process)
    exit_code = process.wait(timeout=600)
    return exit_code, drawn.decode(errors="replace"), stdout_file.read_text(encoding="utf-8")


def run_cli_on_a_full_terminal(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Run ``cfglint`` with stdout and stderr on one pseudo-terminal, as typed at a terminal.

    Returns the exit code and everything drawn on the terminal (escape codes included).
    """
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
        stdout=terminal,
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
        check=True,
    )
    loaded = json.loads(completed.stdout)
    assert isinstance(loaded, list)
    return loaded
