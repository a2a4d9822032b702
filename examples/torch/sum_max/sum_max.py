# sum_max.py - two outputs of very different scales: each row's sum over a
# long axis (about 5e5) and its maximum (about 1). One tolerance for both
# would have to admit torch's own error on the sum and so let a maximum off
# by 1e-3 pass; each output has its own (README "PyTorch problems").
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=1), x.amax(dim=1)


rows = 16
cols = 1048576


def get_inputs():
    return [torch.rand(rows, cols)]


def get_init_inputs():
    return []
