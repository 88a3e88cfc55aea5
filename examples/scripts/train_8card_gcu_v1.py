"""The same entry script, as it was first: it let MMEngine create the process group.

Started by `scripts/start_8card_training_v1.sh`. `mmengine.dist.init_dist` calls
`torch.cuda.set_device(local_rank)` for a device MMEngine does not know, and the T20 host has
no NVIDIA driver.
"""
import argparse

from mmengine.config import Config, DictAction
from mmengine.runner import Runner


def parse_args():
    parser = argparse.ArgumentParser(description='DINOv3 on MMRS-1M, 8 x T20 GCU')
    parser.add_argument('config', help='train config file path')
    parser.add_argument('--launcher', choices=['none', 'pytorch'], default='none')
    parser.add_argument('--cfg-options', nargs='+', action=DictAction)
    parser.add_argument('--local-rank', '--local_rank', type=int, default=0)
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    cfg.launcher = args.launcher
    if args.cfg_options is not None:
        cfg.merge_from_dict(args.cfg_options)

    # Distributed initialisation, the MMEngine way.
    if cfg.get('launcher', 'none') == 'pytorch':
        from mmengine.dist import init_dist
        init_dist(launcher='pytorch', backend=cfg.env_cfg.dist_cfg.get('backend', 'eccl'))

    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
