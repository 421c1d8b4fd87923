import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over a very wide row: every output is about 1/dim, so all zeros pass a 1e-4 tolerance."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


batch_size, dim = 4, 65536


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
