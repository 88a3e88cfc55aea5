from mmengine.config import read_base

with read_base():
    from ._base_.schedules.schedule_1x import *

# ConfigDict.merge: MMEngine's merge rules, `_delete_` included, on an inherited dict.
optim_wrapper.merge(dict(optimizer=dict(lr=0.1), clip_grad=dict(max_norm=1)))
train_cfg.merge(dict(_delete_=True, type='IterBasedTrainLoop', max_iters=1000))
param_scheduler[0].merge(dict(end=1000, extra=dict(_delete_=True, a=1)))
