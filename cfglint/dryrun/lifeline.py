"""A rank ends when the launcher does, even when the launcher is killed by SIGKILL.

Standard library only: the entry-script probe loads this before the user's script.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
_PARENT_POLL_S = 0.5


def kill_own_group() -> None:
    # The rank leads its own session: its group holds anything the rank's code started too.
    with contextlib.suppress(OSError):
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(1)


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(_PARENT_POLL_S)
    kill_own_group()


def die_with_parent(parent_pid: int) -> None:
    """End this rank when the launcher dies, even by SIGKILL, which no handler sees.

    Linux: the kernel sends SIGKILL (PR_SET_PDEATHSIG). Elsewhere, or if prctl fails: a thread
    polls the parent pid.
    """
    if parent_pid <= 0:
        return
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    # The parent may have died before prctl took effect: then the signal never comes.
    if os.getppid() != parent_pid:
        kill_own_group()
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
