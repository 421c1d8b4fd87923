import urllib.request

import torch
import torch.nn as nn


class Model(nn.Module):
    """Unconvertible: the constructor downloads pretrained weights."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        with urllib.request.urlopen("http://127.0.0.1:9/weights.pt", timeout=1) as reply:
            self.fc.load_state_dict(torch.load(reply))

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.rand(2, 4)]


def get_init_inputs():
    return []
