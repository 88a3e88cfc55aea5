"""Stands in for `torch_gcu`: a device plug-in must be imported before torch and mmengine, so
it fails if anything (the dry run's probe included) imported them first."""

import sys

_too_early = sorted(name for name in ('torch', 'mmengine') if name in sys.modules)
if _too_early:
    raise RuntimeError(f'imported before the device plug-in: {", ".join(_too_early)}')
