default_scope = None
custom_imports = dict(imports=['no_such_module_for_cfglint'], allow_failed_imports=False)
model = dict(type='NoSuchModel')
