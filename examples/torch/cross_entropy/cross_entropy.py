# cross_entropy.py - F.cross_entropy of logits against int64 class
# targets: an integer input and a single scalar output.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets):
        return F.cross_entropy(logits, targets)


batch = 512
classes = 1000


def get_inputs():
    return [torch.randn(batch, classes),
            torch.randint(0, classes, (batch,))]


def get_init_inputs():
    return []
