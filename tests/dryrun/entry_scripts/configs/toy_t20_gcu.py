# cfglint: target=t20-gcu
# A T20 config that is right by itself (device_ids=None, gloo); the entry scripts beside it
# change it the way our users' scripts did. Its dataset does not exist: a dry run that let
# training start would fail building it.
_base_ = [
    '../../../../examples/configs/_base_/default_runtime.py',
    '../../../../examples/configs/_base_/models/toy_backbone.py',
]

launcher = 'pytorch'
model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    find_unused_parameters=False,
    broadcast_buffers=False,
    device_ids=None,
)
env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))

train_dataloader = dict(
    dataset=dict(type='NoSuchDatasetAnywhere'),
    batch_size=2,
    sampler=dict(type='DefaultSampler', shuffle=True),
)
train_cfg = dict(type='IterBasedTrainLoop', max_iters=10)
optim_wrapper = dict(optimizer=dict(type='SGD', lr=0.01))
work_dir = './work_dirs/toy_t20_gcu'
