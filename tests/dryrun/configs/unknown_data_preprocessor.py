# The Runner hands the top-level data_preprocessor to the model: its type must exist.
default_scope = None
custom_imports = dict(imports=['dryrun_fault_models'], allow_failed_imports=False)
model = dict(type='DryrunTiny')
data_preprocessor = dict(type='NoSuchPreprocessor')
