"""An entry script that never gets to the Runner (waits on something that never comes)."""

import argparse
import time

from mmengine.config import Config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('config')
    args = parser.parse_args()
    Config.fromfile(args.config)
    time.sleep(600)


if __name__ == '__main__':
    main()
