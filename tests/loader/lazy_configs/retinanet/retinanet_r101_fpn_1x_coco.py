from mmengine.config import read_base

with read_base():
    from .retinanet_r50_fpn_1x_coco import *

# ConfigDict.update merges nested dicts recursively.
model.update(
    dict(
        backbone=dict(
            depth=101,
            init_cfg=dict(type='Pretrained', checkpoint='torchvision://resnet101'))))
train_cfg.max_epochs = 24
param_scheduler[1].update(end=24, milestones=[16, 22])
