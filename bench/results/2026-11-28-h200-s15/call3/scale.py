# scale.py - y = x * g per column: the PyTorch twin of
# examples/problems/scale (same ABI, same template), for the overhead of a
# torch reference against a .problem reference.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, g):
        return x * g


ROWS = 8192
COLS = 8192


def get_inputs():
    return [torch.randn(ROWS, COLS) * 2, torch.rand(COLS) + 0.5]


def get_init_inputs():
    return []
