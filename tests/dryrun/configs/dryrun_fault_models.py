"""Models that misbehave while being built, for the dry run's robustness tests."""

import os
import time

from mmengine.model import BaseModel
from mmengine.registry import MODELS
from torch import nn


class _Tiny(BaseModel):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(2, 2)

    def forward(self, inputs, data_samples=None, mode='tensor'):
        return self.linear(inputs)


@MODELS.register_module()
class HangsWhileBuilding(_Tiny):
    def __init__(self) -> None:
        super().__init__()
        time.sleep(600)


@MODELS.register_module()
class DiesWhileBuilding(_Tiny):
    def __init__(self) -> None:
        super().__init__()
        print('rank going down hard', flush=True)
        os._exit(3)
