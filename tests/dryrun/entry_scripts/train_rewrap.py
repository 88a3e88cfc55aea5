"""The seed-002 pattern: a non-distributed Runner, then the script wraps runner.model itself."""

import argparse

import torch.distributed as dist
from mmengine.config import Config
from mmengine.model import MMDistributedDataParallel
from mmengine.runner import Runner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    parser.add_argument('--work-dir')
    parser.add_argument('--device-ids', choices=['none', 'rank0'], default='none')
    args = parser.parse_args()
    cfg = Config.fromfile(args.config)
    cfg.launcher = 'none'  # "the Runner must not touch init_dist": the script does the DDP part
    if args.work_dir:
        cfg.work_dir = args.work_dir
    dist.init_process_group('gloo')
    runner = Runner.from_cfg(cfg)
    ids = None if args.device_ids == 'none' else [0]
    runner.model = MMDistributedDataParallel(runner.model, device_ids=ids, broadcast_buffers=False)
    runner.train()


if __name__ == '__main__':
    main()
