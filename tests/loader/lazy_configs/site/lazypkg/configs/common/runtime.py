from mmengine.hooks import LoggerHook

default_hooks = dict(logger=dict(type=LoggerHook, interval=20))
env_cfg = dict(dist_cfg=dict(backend='nccl', timeout=1800), cudnn_benchmark=True)
launcher = 'pytorch'
