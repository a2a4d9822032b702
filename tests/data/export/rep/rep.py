# rep.py - x.repeat(1, reps): the module constant reps is no dim of the
# input, only of the output (rows x cols*reps), so the torch export fixes
# it at the run's value (tests/cli/export.sh, scripts/torch-versions.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.repeat(1, reps)


rows = 64
cols = 32
reps = 3


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
