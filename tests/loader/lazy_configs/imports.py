import math
import os.path as osp
from os.path import basename, join

import mmdet.datasets
import mmdet.models
import numpy as np
import torch.nn as nn
from mmengine.config import read_base
from mmengine.model import MMDistributedDataParallel as DDP
from torch.optim import SGD

with read_base():
    from ._base_.default_runtime import *

# Imported classes are LazyObjects (`SGD`), attributes of them LazyAttrs (`nn.ReLU`).
model_wrapper_cfg = dict(type=DDP, find_unused_parameters=False)
optim_wrapper = dict(optimizer=dict(type=SGD, lr=0.01 * math.sqrt(4)))
layers = [nn.ReLU, nn.modules.conv.Conv2d, np.float32, mmdet.models.RetinaNet,
          mmdet.datasets.transforms.Resize, SGD.zero_grad, mmdet, nn]
work_dir = join('work_dirs', osp.splitext(basename('configs/imports.py'))[0])
pi = math.pi
hooks = default_hooks
hooks.logger.interval = 10
sep = osp.sep
