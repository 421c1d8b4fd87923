import torch
import torch.nn as nn


class Model(nn.Module):
    """Unconvertible: the inputs are upper triangular, not independent draws."""

    def forward(self, A, B):
        return torch.triu(A @ B)


def get_inputs():
    return [torch.triu(torch.rand(64, 64)), torch.triu(torch.rand(64, 64))]


def get_init_inputs():
    return []
