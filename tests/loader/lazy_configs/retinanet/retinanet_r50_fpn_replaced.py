from mmengine.config import read_base

with read_base():
    from .._base_.models.retinanet_r50_fpn import model
    from .._base_.schedules.schedule_1x import *

from mmengine.optim import AmpOptimWrapper
from torch.optim import AdamW

# A plain assignment replaces the inherited value whole; `_delete_` is only a key here.
optim_wrapper = dict(
    type=AmpOptimWrapper,
    optimizer=dict(type=AdamW, lr=0.0001, weight_decay=0.05),
    clip_grad=dict(max_norm=0.1, norm_type=2))
model['neck'] = dict(_delete_=True, type='PAFPN', in_channels=[256, 512, 1024, 2048],
                     out_channels=256)
train_cfg = dict(by_epoch=True, max_epochs=36)
