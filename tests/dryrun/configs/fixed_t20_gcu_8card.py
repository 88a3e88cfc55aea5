# The seed-001 config after `cfglint fix --target t20-gcu`: what the fix writes, as an override.
_base_ = ['../../../examples/configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py']

model_wrapper_cfg = dict(
    type='MMDistributedDataParallel',
    broadcast_buffers=False,
    find_unused_parameters=False,
    device_ids=None,
)
env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='gloo'))
