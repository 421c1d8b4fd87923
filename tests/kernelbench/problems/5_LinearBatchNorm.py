import torch
import torch.nn as nn


class Model(nn.Module):
    """Linear, BatchNorm1d (training mode: batch statistics; running stats are buffers), a learned scale."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        self.scale = nn.Parameter(torch.randn(out_features) * 0.1 + 1.0)
        self.register_buffer("offset", torch.linspace(-1.0, 1.0, out_features))

    def forward(self, x):
        return self.bn(self.fc(x)) * self.scale + self.offset


batch_size, in_features, out_features = 16, 32, 24


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
