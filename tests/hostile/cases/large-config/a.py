model = dict(type='X')
