_base_ = ['./_base_/runtime.py']
model = dict(type='X')
