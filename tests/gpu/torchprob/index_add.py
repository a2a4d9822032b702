# expect: index_add.py: the fp64 module disagrees with itself
# index_add.py - a module whose fp64 result depends on the order of GPU
# atomics: index_add_ on CUDA adds with atomicAdd, and 2^22 doubles into 4
# bins come out in a different order (and different last bits) from run to
# run. The worker must refuse it before any candidate runs. (That two runs
# differ is overwhelmingly likely, not certain: a pass here with equal runs
# would be a lucky schedule, not a kevo bug.)
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        idx = torch.arange(x.numel(), device=x.device) % 4
        bins = torch.zeros(4, dtype=x.dtype, device=x.device)
        bins.index_add_(0, idx, x * 1e3)
        return x * bins.sum()


N = 1 << 22


def get_inputs():
    return [torch.rand(N)]


def get_init_inputs():
    return []
