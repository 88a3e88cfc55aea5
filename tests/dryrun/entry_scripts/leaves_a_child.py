"""An entry script that starts a helper process and leaves without wrapping anything."""

import subprocess
import sys

subprocess.Popen(
    [sys.executable, '-c', 'import time; time.sleep(300)', 'cfglint-entry-left-behind'],
    stdin=subprocess.DEVNULL,
)
sys.exit(0)
