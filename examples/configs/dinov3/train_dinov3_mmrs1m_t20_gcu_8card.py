# DINOv3 fine-tuning on MMRS-1M, 8 x T20 GCU, as the team wrote it for the T20 port.
_base_ = [
    '../_base_/default_runtime.py',
    '../_base_/models/toy_backbone.py',
]

launcher = 'pytorch'

# Model wrapper for the GCU environment: device_ids left out on purpose,
# "so that the model handles device placement by itself".
model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    find_unused_parameters=False,
    broadcast_buffers=False,
)

train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=4000)
work_dir = './work_dirs/dinov3_mmrs1m_t20_gcu_8card'
