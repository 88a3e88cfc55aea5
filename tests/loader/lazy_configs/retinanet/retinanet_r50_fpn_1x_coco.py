from mmengine.config import read_base

with read_base():
    from .._base_.datasets.coco_detection import *
    from .._base_.default_runtime import *
    from .._base_.models.retinanet_r50_fpn import *
    from .._base_.schedules.schedule_1x import *

from torch.optim.sgd import SGD

# The base's optimizer replaced: no merge in this style (`_delete_` is not needed).
optim_wrapper.merge_free = True
optim_wrapper.optimizer = dict(type=SGD, lr=0.01, momentum=0.9, weight_decay=0.0001)
