"""Does a constant output pass? Runs the problem for real (on the GPU when there is one, on the CPU
only when its tensors are small) a few times with get_inputs' own draws, and asks whether all zeros,
or every element set to the output's mean, is within the task's tolerance of the true output on
every draw (the mean taken from an earlier draw). Such a problem is degenerate: a kernel that computes nothing could pass it."""
from __future__ import annotations

import torch

from .problem import DTYPES, Problem

CPU_ELEMENT_LIMIT = 1 << 24  # inputs and outputs together, for a run on the CPU
CPU_FLOP_LIMIT = 2e9         # about a second of one CPU core per draw


def _outputs(value) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def check_constant_outputs(problem: Problem, model_cpu: torch.nn.Module, precision: str, tolerance: float,
                           elements: int, flops: float, draws: int = 3, seed: int = 1234) -> dict:
    """{"device": ..., "zeros_pass": bool, "mean_passes": bool} or {"skipped": why}."""
    if torch.cuda.is_available():
        device = "cuda"
    elif elements <= CPU_ELEMENT_LIMIT and flops <= CPU_FLOP_LIMIT:
        device = "cpu"
    else:
        return {"skipped": f"no GPU here, and {elements:.3g} elements / {flops:.3g} FLOP are too much to run on the CPU"}
    dtype = DTYPES[precision]
    model = model_cpu if device == "cpu" else _copy_to(model_cpu, device)
    # The constant is fixed before the draws it is tested on: the first draw's mean, tried on the
    # others (the mean of the same draw would pass any one-element output).
    zeros_pass, mean_passes, means = True, True, None
    for k in range(draws):
        torch.manual_seed(seed + k)
        with torch.device(device):
            inputs = problem.module.get_inputs()
        inputs = [x.to(device=device, dtype=dtype) if isinstance(x, torch.Tensor) else x for x in inputs]
        with torch.no_grad():
            outs = _outputs(model(*inputs))
        if any(not isinstance(o, torch.Tensor) or not o.is_floating_point() for o in outs):
            return {"skipped": "an output is not a floating-point tensor"}
        if means is None:
            means = [o.float().mean().item() for o in outs]
        else:
            for out, mean in zip(outs, means):
                zeros_pass &= bool(torch.allclose(torch.zeros_like(out), out, atol=tolerance, rtol=tolerance))
                mean_passes &= bool(torch.allclose(torch.full_like(out, mean), out, atol=tolerance, rtol=tolerance))
        del inputs, outs
    if device == "cuda":
        del model
        torch.cuda.empty_cache()
    return {"device": device, "draws": draws - 1, "zeros_pass": zeros_pass, "mean_passes": mean_passes}


def _copy_to(model: torch.nn.Module, device: str) -> torch.nn.Module:
    import copy

    return copy.deepcopy(model).to(device)
