"""The result cache: a command's output replayed while every input it read is unchanged.

`key.py` names a run (cfglint's version, the options, where it runs); `inputs.py` records what
the run read (through `cfglint/files.py`) and checks it later; `entry.py` is the stored value
(frozen, versioned, validated when read); `store.py` finds the cache folder and reads and writes
entries atomically. `cfglint/cli/cached.py` puts them around a command.
"""
