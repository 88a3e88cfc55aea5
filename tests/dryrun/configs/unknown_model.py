default_scope = None
model = dict(type='NoSuchModel')
