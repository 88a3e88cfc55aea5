model = dict(type='X')
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
env_cfg = dict(dist_cfg=dict(backend='gloo'))
