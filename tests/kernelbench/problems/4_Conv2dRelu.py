import torch
import torch.nn as nn


class Model(nn.Module):
    """A 3x3 convolution with bias, then ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch_size, in_channels, out_channels, height, width = 2, 3, 8, 16, 16


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, 3]
