# center4d.py - rank 4: each (n, c) plane minus its mean, times a
# per-channel weight (an nn.Parameter).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels))

    def forward(self, x):
        m = x.mean(dim=(2, 3), keepdim=True)
        return (x - m) * self.weight.view(1, -1, 1, 1)


batch = 8
channels = 32
height = 64
width = 48


def get_inputs():
    return [torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [channels]
