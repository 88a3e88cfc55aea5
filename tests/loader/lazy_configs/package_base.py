from mmengine.config import read_base

with read_base():
    from lazypkg.configs.common.runtime import *
    from ._base_.schedules.schedule_1x import optim_wrapper

env_cfg.dist_cfg.update(dict(timeout=600))
optim_wrapper.optimizer.lr = 0.005
