from mmengine.hooks import (CheckpointHook, IterTimerHook, LoggerHook,
                            ParamSchedulerHook)
from mmengine.visualization import LocalVisBackend, Visualizer

default_scope = None

default_hooks = dict(
    timer=dict(type=IterTimerHook),
    logger=dict(type=LoggerHook, interval=50),
    param_scheduler=dict(type=ParamSchedulerHook),
    checkpoint=dict(type=CheckpointHook, interval=1),
)

env_cfg = dict(
    cudnn_benchmark=False,
    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
    dist_cfg=dict(backend='nccl'),
)

vis_backends = [dict(type=LocalVisBackend)]
visualizer = dict(type=Visualizer, vis_backends=vis_backends, name='visualizer')
log_level = 'INFO'
load_from = None
resume = False
