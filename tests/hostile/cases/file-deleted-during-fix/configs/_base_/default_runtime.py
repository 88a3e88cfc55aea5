env_cfg = dict(cudnn_benchmark=False, dist_cfg=dict(backend='nccl'))
