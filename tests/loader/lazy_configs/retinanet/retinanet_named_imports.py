from mmengine.config import read_base

with read_base():
    from .._base_.default_runtime import default_hooks, env_cfg as runtime_env
    from .._base_.models.retinanet_r50_fpn import model
    from .._base_.models.retinanet_r50_fpn import model as same_model
    from .retinanet_r50_fpn_1x_coco import model as other_model

# Two names imported from one base module are one dict; a second module is another.
same_model.backbone.depth = 18
other_model.backbone.frozen_stages = 1
runtime_env.dist_cfg.backend = 'gloo'
env_cfg = runtime_env
hooks = list(default_hooks.keys())
