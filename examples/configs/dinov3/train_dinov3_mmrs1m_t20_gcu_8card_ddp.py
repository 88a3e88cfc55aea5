# The same job with the wrapper copied from a CUDA config (the first attempt).
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    device_ids=[0],
    output_device=0,
    find_unused_parameters=False,
)

train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=4000)
work_dir = './work_dirs/dinov3_mmrs1m_t20_gcu_8card_ddp'
