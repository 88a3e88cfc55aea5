"""Models that misbehave while being built, for the dry run's robustness tests."""

import os
import time

from mmengine.model import BaseModel
from mmengine.registry import MODELS
from torch import nn


@MODELS.register_module()
class DryrunTiny(BaseModel):
    """Well behaved; takes `data_preprocessor` as OpenMMLab's models do."""

    def __init__(self, data_preprocessor=None) -> None:
        super().__init__(data_preprocessor=data_preprocessor)
        self.linear = nn.Linear(2, 2)

    def forward(self, inputs, data_samples=None, mode='tensor'):
        return self.linear(inputs)


@MODELS.register_module()
class HangsWhileBuilding(DryrunTiny):
    def __init__(self) -> None:
        super().__init__()
        time.sleep(600)


@MODELS.register_module()
class HangsOnRank1WhileBuilding(DryrunTiny):
    """Rank 1 never finishes building: rank 0 goes on and waits for it in the DDP wrap."""

    def __init__(self) -> None:
        super().__init__()
        if os.environ['RANK'] == '1':
            time.sleep(600)


@MODELS.register_module()
class DiesWhileBuilding(DryrunTiny):
    def __init__(self) -> None:
        super().__init__()
        print('rank going down hard', flush=True)
        os._exit(3)


@MODELS.register_module()
class ExitsWhileBuilding(DryrunTiny):
    def __init__(self) -> None:
        super().__init__()
        raise SystemExit(3)
