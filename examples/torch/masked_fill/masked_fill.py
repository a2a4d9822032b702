# masked_fill.py - x with the masked elements set to -1 (a bool input).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        return x.masked_fill(mask, -1.0)


n = 1024
m = 1000


def get_inputs():
    return [torch.randn(n, m), torch.rand(n, m) < 0.3]


def get_init_inputs():
    return []
