"""Writes what it was started with (argv, cwd, sys.path[0], the rank variables) to OUT_DIR."""

import json
import os
import sys

VARIABLES = (
    'RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'ROLE_RANK',
    'MASTER_ADDR', 'MASTER_PORT', 'CUDA_VISIBLE_DEVICES', 'TORCHELASTIC_USE_AGENT_STORE',
)

if __name__ == '__main__':
    seen = {
        'argv': sys.argv[1:],
        'cwd': os.getcwd(),
        'path0': sys.path[0],
        'file': __file__,
        'imported': sorted(name for name in ('torch', 'mmengine') if name in sys.modules),
        'env': {name: os.environ.get(name) for name in VARIABLES},
    }
    out = os.path.join(sys.argv[1], f"rank{os.environ['RANK']}.json")
    with open(out, 'w') as file:
        json.dump(seen, file)
