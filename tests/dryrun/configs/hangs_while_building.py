default_scope = None
custom_imports = dict(imports=['dryrun_fault_models'], allow_failed_imports=False)
model = dict(type='HangsWhileBuilding')
