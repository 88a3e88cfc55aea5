# A small model the dry run can build in a second: see examples/toy_model.py.
custom_imports = dict(imports=['toy_model'], allow_failed_imports=False)

model = dict(
    type='ToyClassifier',
    in_channels=3,
    hidden_channels=16,
    num_classes=10,
)
