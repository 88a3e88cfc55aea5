default_scope = None
custom_imports = dict(imports=['dryrun_fault_models'], allow_failed_imports=False)
runner_type = 'FlexibleRunner'
strategy = dict(
    type='DDPStrategy', model_wrapper=dict(type='MMDistributedDataParallel', device_ids=None)
)
model = dict(type='DryrunTiny')
