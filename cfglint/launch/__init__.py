"""Launches: the entry script and the launcher are part of the config (docs/launches.md).

A job runs a *launch*: a shell line or a command that starts an entry script with arguments in N
processes. `shell.py` finds launches in shell launchers; the entry script is then read
statically (never executed) to see what it does to the config before the Runner gets it.
"""
