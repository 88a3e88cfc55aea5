"""8-card DINOv3 training on the T20 GCU server: the team's entry script, as it was last.

Started by `scripts/start_8card_training.sh` from the project root. It already creates the
process group itself (the fix for "Found no NVIDIA driver on your system"), but it overwrites
`model_wrapper_cfg` without `device_ids` after loading the config, and it never imports
`torch_gcu.transfer_to_gcu`, so MMEngine does not see the GCU.
"""
import argparse

import torch.distributed as dist
from mmengine.config import Config, DictAction
from mmengine.runner import Runner

try:
    import torch_gcu  # noqa: F401  (Enflame's PyTorch extension on the T20 host)
except ImportError:  # a machine without it: a CPU smoke test
    torch_gcu = None


def parse_args():
    parser = argparse.ArgumentParser(description='DINOv3 on MMRS-1M, 8 x T20 GCU')
    parser.add_argument('config', help='train config file path')
    parser.add_argument('--work-dir', help='the dir to save logs and models')
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
    if args.work_dir is not None:
        cfg.work_dir = args.work_dir

    # Distributed set-up without MMEngine's init_dist, which calls torch.cuda.set_device.
    if cfg.launcher == 'pytorch' and not dist.is_initialized():
        dist.init_process_group(backend='gloo')

    # Model wrapper for the GCU environment: device_ids left out on purpose,
    # "so that the model handles device placement by itself".
    cfg.model_wrapper_cfg = dict(
        type='MMDistributedDataParallel',
        find_unused_parameters=False,
        broadcast_buffers=False,
    )

    runner = Runner.from_cfg(cfg)
    runner.train()


if __name__ == '__main__':
    main()
