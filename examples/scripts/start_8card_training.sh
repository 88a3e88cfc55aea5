#!/usr/bin/env bash
# 8-card DINOv3 training on the T20 server. Run from the project root:
#   bash scripts/start_8card_training.sh
CONFIG_FILE=configs/dinov3/train_dinov3_mmrs1m_t20_gcu_8card.py
WORK_DIR=./work_dirs/dinov3_mmrs1m_t20_gcu_8card

export PYTHONPATH=.:$PYTHONPATH
torchrun --nproc_per_node=8 --master_port=29500 \
    scripts/train_distributed_8card_gcu.py $CONFIG_FILE \
    --launcher pytorch --work-dir $WORK_DIR \
    2>&1 | tee train_8card.log
