"""Shell launchers read statically: `read_launcher` (read.py) gives every launch a launcher starts.

A small simulated bash: lexer.py and parser.py give a tree (tree.py), interp.py runs it with
expand.py/fields.py/words.py for expansions and builtin_commands.py, loops.py, calls.py,
conditions.py for what a shell does; runners*.py recognise the commands that start Python
(python, torchrun, torch.distributed.launch, srun, mpirun and their wrappers), and to_launch.py
turns each into a `Launch`. Nothing is executed (docs/launches.md).
"""

from cfglint.launch.shell.read import read_launcher

__all__ = ["read_launcher"]
