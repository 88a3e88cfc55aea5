_base_ = ['./_base_/default_runtime.py']
model = dict(type='X')
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
