import torch.nn as nn
from mmdet.models import FPN, RetinaHead, RetinaNet
from mmdet.models.backbones import ResNet

import mmdet.models.task_modules
import mmdet.models.losses

model = dict(
    type=RetinaNet,
    backbone=dict(
        type=ResNet,
        depth=50,
        num_stages=4,
        out_indices=(0, 1, 2, 3),
        norm_cfg=dict(type=nn.BatchNorm2d, requires_grad=True),
        act_cfg=dict(type=nn.ReLU),
        init_cfg=dict(type='Pretrained', checkpoint='torchvision://resnet50')),
    neck=dict(type=FPN, in_channels=[256, 512, 1024, 2048], out_channels=256),
    bbox_head=dict(
        type=RetinaHead,
        num_classes=80,
        anchor_generator=dict(
            type=mmdet.models.task_modules.AnchorGenerator,
            octave_base_scale=4,
            ratios=[0.5, 1.0, 2.0],
            strides=[8, 16, 32, 64, 128]),
        loss_cls=dict(type=mmdet.models.losses.FocalLoss, gamma=2.0, alpha=0.25),
        loss_bbox=dict(type=mmdet.models.losses.L1Loss, loss_weight=1.0)),
    train_cfg=dict(
        assigner=dict(type='MaxIoUAssigner', pos_iou_thr=0.5, neg_iou_thr=0.4),
        allowed_border=-1,
        pos_weight=-1,
        debug=False),
    test_cfg=dict(nms_pre=1000, score_thr=0.05, nms=dict(type='nms', iou_threshold=0.5)))
