# A small model the dry run can build in a second: see examples/toy_model.py.
custom_imports = dict(imports=['toy_model'], allow_failed_imports=False)

model = dict(
    type='ToyClassifier',
    in_channels=3,
    hidden_channels=16,
    num_classes=10,
)

# What MMEngine's Runner needs to be built for training (it checks that train_cfg,
# train_dataloader and optim_wrapper come together). The Runner builds the dataloader only
# when training starts, which a dry run never reaches.
train_dataloader = dict(
    batch_size=2,
    num_workers=0,
    dataset=dict(type='ToyDataset', size=64),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
optim_wrapper = dict(optimizer=dict(type='SGD', lr=0.01, momentum=0.9))
