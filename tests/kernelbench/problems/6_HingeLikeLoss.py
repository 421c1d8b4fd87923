import torch
import torch.nn as nn


class Model(nn.Module):
    """A loss: a scalar output, with targets drawn from {-1, 1}."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


batch_size = 128


def get_inputs():
    scale = torch.rand(())
    return [torch.rand(batch_size, 10) * scale, torch.randint(0, 2, (batch_size, 1)).float() * 2 - 1]


def get_init_inputs():
    return []
