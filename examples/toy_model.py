"""Toy models the examples' configs build through MMEngine's registry.

`custom_imports = dict(imports=['toy_model'])` imports this file; `cfglint dryrun` puts the
project root (this folder) on each rank's `sys.path`, as `PYTHONPATH=.` does in OpenMMLab's
`tools/dist_train.sh`. The models are registered in MMEngine's root `MODELS` registry, which
is what `default_scope = None` builds from.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from mmengine.model import BaseModel
from mmengine.registry import MODELS
from torch import nn


class _Backbone(nn.Sequential):
    def __init__(self, in_channels: int, hidden_channels: int) -> None:
        super().__init__(
            nn.Conv2d(in_channels, hidden_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(hidden_channels),  # gives the model buffers, not only parameters
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )


@MODELS.register_module()
class ToyClassifier(BaseModel):
    """Conv + BN + linear head: small enough to build and wrap in a second."""

    def __init__(
        self,
        in_channels: int = 3,
        hidden_channels: int = 16,
        num_classes: int = 10,
        data_preprocessor=None,
    ):
        # Like OpenMMLab's models: the Runner hands the config's top-level `data_preprocessor`
        # over through this argument, and BaseModel builds it from MMEngine's registry.
        super().__init__(data_preprocessor=data_preprocessor)
        self.backbone = _Backbone(in_channels, hidden_channels)
        self.head = nn.Linear(hidden_channels, num_classes)

    def forward(self, inputs: torch.Tensor, data_samples=None, mode: str = 'tensor'):
        logits = self.head(self.backbone(inputs))
        if mode == 'loss':
            return {'loss': F.cross_entropy(logits, data_samples)}
        if mode == 'predict':
            return logits.argmax(dim=1)
        return logits


@MODELS.register_module()
class ToySplitClassifier(ToyClassifier):
    """The same model with backbone and head on two devices (model parallel).

    Needs two devices, e.g. `devices=('cuda:0', 'cuda:1')`. The inputs follow the layers.
    """

    def __init__(self, devices=('cuda:0', 'cuda:1'), **kwargs):
        super().__init__(**kwargs)
        self.backbone_device, self.head_device = (torch.device(d) for d in devices)
        self.backbone.to(self.backbone_device)
        self.head.to(self.head_device)

    def forward(self, inputs: torch.Tensor, data_samples=None, mode: str = 'tensor'):
        features = self.backbone(inputs.to(self.backbone_device))
        logits = self.head(features.to(self.head_device))
        if mode == 'loss':
            return {'loss': F.cross_entropy(logits, data_samples.to(self.head_device))}
        if mode == 'predict':
            return logits.argmax(dim=1)
        return logits
