"""The T20 entry script's import order: the device plug-in first, then torch and mmengine."""
# ruff: noqa: I001  (the order is the point)

import fake_gcu_plugin  # noqa: F401  (must come first, as `from torch_gcu import transfer_to_gcu`)

import argparse

import torch.distributed as dist
from mmengine.config import Config
from mmengine.runner import Runner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    parser.add_argument('--work-dir')
    args = parser.parse_args()
    cfg = Config.fromfile(args.config)
    cfg.work_dir = args.work_dir
    dist.init_process_group('gloo')
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
