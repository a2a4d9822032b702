# expect: oom.py:12:
# oom.py - a module whose forward needs far more GPU memory than there is
# (an N x N outer product of 2^22 doubles: 128 TiB): the worker must refuse
# it, naming this file and line, before any candidate runs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        # x[:, None] * x[None, :] is N x N
        return (x[:, None] * x[None, :]).sum(dim=1)


N = 1 << 22


def get_inputs():
    return [torch.rand(N)]


def get_init_inputs():
    return []
