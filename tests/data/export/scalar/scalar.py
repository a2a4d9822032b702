# scalar.py - 0-D tensors: a scalar input s, a scalar buffer bias, a
# scalar output and an int64 one, for the torch export's ranks
# (tests/cli/export.sh, scripts/torch-versions.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.tensor(0.5))

    def forward(self, x, s):
        return (x * s).sum() + self.bias, (x > s).sum(dim=1)


n = 16
m = 8


def get_inputs():
    return [torch.randn(n, m), torch.tensor(0.25)]


def get_init_inputs():
    return []
