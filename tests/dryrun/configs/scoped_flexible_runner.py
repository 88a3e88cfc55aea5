default_scope = None
custom_imports = dict(imports=['dryrun_fault_models'], allow_failed_imports=False)
# The registry name with its scope: still FlexibleRunner.
runner_type = 'mmengine.FlexibleRunner'
strategy = dict(
    type='DDPStrategy', model_wrapper=dict(type='MMDistributedDataParallel', device_ids=None)
)
model = dict(type='DryrunTiny')
