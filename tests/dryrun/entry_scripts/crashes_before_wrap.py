"""An entry script that fails on its own, before the Runner: nothing about the wrap to show."""

import argparse

from mmengine.config import Config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    args = parser.parse_args()
    cfg = Config.fromfile(args.config)
    with open('no/such/class_names.txt') as names:
        cfg.class_names = names.read().split()


if __name__ == '__main__':
    main()
