"""The in-process probe of an entry-script dry run (`cfglint dryrun --entry SCRIPT`).

Each rank is `python -m cfglint.dryrun.probe REQUEST_JSON`: it installs import hooks, then runs
the user's script unmodified as `__main__` (`runpy.run_path`). The hooks patch MMEngine's and
torch's functions in this process only, once the script itself imports them, so the script's
import order is its own (a vendor plug-in such as `torch_gcu.transfer_to_gcu` imported before
mmengine still comes first). Nothing here imports torch or mmengine; nothing is written outside
the launcher's temporary folder.
"""
