# expect: random_forward.py: the fp64 module disagrees with itself
# random_forward.py - a module that draws random numbers inside forward: its
# fp64 reference is not reproducible, and the worker must refuse it before
# any candidate runs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x + 1e-3 * torch.rand_like(x)


N = 4096


def get_inputs():
    return [torch.rand(N)]


def get_init_inputs():
    return []
