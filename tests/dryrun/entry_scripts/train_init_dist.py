"""The seed-003 entry script: it calls mmengine.dist.init_dist itself, with gloo."""

import argparse

from mmengine.config import Config
from mmengine.dist import init_dist
from mmengine.runner import Runner


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    parser.add_argument('--launcher', default='pytorch')
    parser.add_argument('--work-dir')
    args = parser.parse_args()
    cfg = Config.fromfile(args.config)
    cfg.launcher = args.launcher
    if args.work_dir:
        cfg.work_dir = args.work_dir
    if args.launcher == 'pytorch':
        init_dist(launcher='pytorch', backend='gloo')
    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
