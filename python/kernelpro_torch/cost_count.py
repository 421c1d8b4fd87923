"""The work of one forward call, counted on meta tensors (no data, so any size is free to count):
PyTorch's flop counter for the operations it has formulas for (matmuls, convolutions, attention),
plus one operation per element for everything else that computes (elementwise maps and reductions:
the larger of the output and the largest input). Views, copies and allocations count nothing."""
from __future__ import annotations

import dataclasses

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import FlopCounterMode, flop_registry

_FREE = {"copy_", "_to_copy", "clone", "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
         "ones_like", "full", "full_like", "zero_", "fill_", "detach", "lift_fresh", "alias", "contiguous",
         "new_empty", "new_zeros", "new_ones", "new_full", "scalar_tensor", "_local_scalar_dense", "arange"}


@dataclasses.dataclass
class Cost:
    counted_flops: float = 0.0      # PyTorch's flop counter (matmul, conv, attention, ...)
    elementwise_flops: float = 0.0  # one per element of every other computing operation
    operations: dict = dataclasses.field(default_factory=dict)  # aten op name -> calls

    @property
    def flops(self) -> float:
        return self.counted_flops + self.elementwise_flops


class _ElementwiseCounter(TorchDispatchMode):
    def __init__(self, cost: Cost):
        super().__init__()
        self.cost = cost

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        self.cost.operations[name] = self.cost.operations.get(name, 0) + 1
        if func.overloadpacket in flop_registry or func.is_view or name in _FREE:
            return out
        outs = [t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        ins = [t.numel() for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
        self.cost.elementwise_flops += max(sum(outs), max(ins, default=0))
        return out


def count_forward(model: torch.nn.Module, inputs: list):
    """Runs model(*inputs) (meta tensors) under both counters; returns (output, Cost)."""
    cost = Cost()
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter, _ElementwiseCounter(cost):
        output = model(*inputs)
    cost.counted_flops = float(counter.get_total_flops())
    return output, cost
