# cfglint: target=t20-gcu
# A smoke test for the T20 port: the runtime is already ported, the wrapper is not.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))

train_cfg = dict(type='IterBasedTrainLoop', max_iters=100, val_interval=100)
