model = dict(type='X')
buffer = bytearray(3)
names = dir()
view = memoryview(b'ab')
