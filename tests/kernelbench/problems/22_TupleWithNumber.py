import torch
import torch.nn as nn


class Model(nn.Module):
    """Unconvertible: forward returns a tuple holding a Python float."""

    def forward(self, x):
        return x * 2, 0.5


def get_inputs():
    return [torch.rand(16)]


def get_init_inputs():
    return []
