"""The loader is part of the light core: it never imports torch, mmengine or a config's package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import EXAMPLES

_PROBE = """
import sys
from pathlib import Path
from cfglint.loader import Loader
from cfglint.types import ResolvedConfig
result = Loader().load(Path(sys.argv[1]))
assert isinstance(result, ResolvedConfig), result
print(sorted(name for name in ("torch", "mmengine", "mmdet", "toy_model") if name in sys.modules))
"""


def test_resolving_imports_no_ml_stack() -> None:
    config = EXAMPLES / "configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py"
    completed = subprocess.run(
        [sys.executable, "-c", _PROBE, str(config)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(config).parent, timeout=300,
    )
    assert completed.stdout.strip() == "[]"
