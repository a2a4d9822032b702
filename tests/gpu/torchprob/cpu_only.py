# expect: cpu_only.py:12:
# cpu_only.py - a module whose forward uses an op torch implements only on
# the CPU (torch.histogram): it describes (on the CPU), and the worker must
# refuse it, naming this file and line, before any candidate runs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        # torch.histogram has no CUDA kernel
        h = torch.histogram(x, bins=4)[0]
        return x * h.sum()


N = 4096


def get_inputs():
    return [torch.rand(N)]


def get_init_inputs():
    return []
