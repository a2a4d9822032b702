# expect: nonfinite.py: the fp64 module's output 0 is not finite
# nonfinite.py - a module whose output is NaN on its own inputs (log of a
# negative number): the worker must refuse it before any candidate runs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.log(x - 2.0)


N = 4096


def get_inputs():
    return [torch.rand(N)]


def get_init_inputs():
    return []
