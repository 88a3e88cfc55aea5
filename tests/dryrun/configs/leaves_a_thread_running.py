default_scope = None
custom_imports = dict(
    imports=['dryrun_fault_models', 'thread_left_running'], allow_failed_imports=False
)
env_cfg = dict(dist_cfg=dict(backend='gloo'))
model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None)
model = dict(type='DryrunTiny')
