model = dict(type='X')

env_cfg = dict(dist_cfg=dict(backend='gloo'))

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    broadcast_buffers=False,
    find_unused_parameters=False,
    device_ids=None,
)
