# The CUDA job that shares the runtime base: clean for target `cuda`.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

model_wrapper_cfg = dict(type='MMDistributedDataParallel', find_unused_parameters=False)

train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=4000)
