from mmengine.config import read_base

with read_base():
    from .retinanet.retinanet_r101_fpn_1x_coco import model as r101
    from .retinanet.retinanet_r50_fpn_1x_coco import *

# Each base module is parsed by itself: `r101` (from a base that changed its copy of the model)
# and `model` (from another) are different dicts.
model.backbone.depth = 34
r101_depth = r101.backbone.depth
models = [model, r101]
