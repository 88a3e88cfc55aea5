#!/usr/bin/env bash
# The first launcher: the config with the wrapper copied from a CUDA job, started through
# MMEngine's own init_dist.
CONFIG_FILE=configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card_ddp.py
GPUS=8

PYTHONPATH=.:$PYTHONPATH \
python -m torch.distributed.launch --nproc_per_node=$GPUS \
    scripts/train_8card_gcu_v1.py $CONFIG_FILE --launcher pytorch
