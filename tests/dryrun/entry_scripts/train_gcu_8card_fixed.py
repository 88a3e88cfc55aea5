"""train_gcu_8card.py after the fix: the same script, with device_ids=None written out."""

import argparse

import torch.distributed as dist
from mmengine.config import Config
from mmengine.runner import Runner


def parse_args():
    parser = argparse.ArgumentParser(description='Train on 8 x T20 GCU')
    parser.add_argument('config')
    parser.add_argument('--launcher', choices=['none', 'pytorch'], default='none')
    parser.add_argument('--work-dir')
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    cfg.launcher = args.launcher
    if args.work_dir:
        cfg.work_dir = args.work_dir
    cfg.model_wrapper_cfg = dict(
        type='MMDistributedDataParallel',
        find_unused_parameters=False,
        broadcast_buffers=False,
        device_ids=None,
    )
    if not dist.is_initialized():
        dist.init_process_group('gloo')
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
