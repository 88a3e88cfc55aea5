"""A custom import that leaves a non-daemon thread running, as some logging set-ups do."""

import threading
import time

threading.Thread(target=time.sleep, args=(600,), name='left-running').start()
