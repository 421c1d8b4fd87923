"""Does a constant output pass? Runs the problem for real (on the GPU when there is one, on the CPU
only when its tensors are small) a few times with get_inputs' own draws, and asks whether all zeros,
or every element set to the output's mean, is within the task's tolerance of the true output on
every draw (the mean taken from an earlier draw). Such a problem is degenerate: a kernel that
computes nothing could pass it."""
from __future__ import annotations

import torch

from .problem import DTYPES, Problem

CPU_ELEMENT_LIMIT = 1 << 24  # inputs and outputs together, for a run on the CPU
CPU_FLOP_LIMIT = 2e9         # about a second of one CPU core per draw


def _outputs(value) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _within(out: torch.Tensor, constant: float, tolerance: float) -> bool:
    """allclose(constant, out) with atol = rtol = tolerance, one temporary at a time (level-1
    outputs are 6 GB)."""
    bound = out.abs().mul_(tolerance).add_(tolerance)
    deviation = (out - constant).abs_() if constant else out.abs()
    return bool((deviation <= bound).all())


def check_constant_outputs(problem: Problem, model: torch.nn.Module, precision: str, tolerance: float,
                           elements: int, flops: float, draws: int = 3, seed: int = 1234) -> dict:
    """{"device": ..., "zeros_pass": bool, "mean_passes": bool} or {"skipped": why}. `model` is
    moved to the device it runs on (the importer is done with it)."""
    try:
        return _check(problem, model, precision, tolerance, elements, flops, draws, seed)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return {"skipped": "out of GPU memory (other imports running at once?)"}


def _check(problem, model, precision, tolerance, elements, flops, draws, seed) -> dict:
    if torch.cuda.is_available():
        device = "cuda"
    elif elements <= CPU_ELEMENT_LIMIT and flops <= CPU_FLOP_LIMIT:
        device = "cpu"
    else:
        return {"skipped": f"no GPU here, and {elements:.3g} elements / {flops:.3g} FLOP are too much to run on the CPU"}
    dtype = DTYPES[precision]
    model = model.to(device)
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
        del inputs
        if any(not isinstance(o, torch.Tensor) or not o.is_floating_point() for o in outs):
            return {"skipped": "an output is not a floating-point tensor"}
        if means is None:
            means = [o.mean(dtype=torch.float32).item() for o in outs]
        else:
            for out, mean in zip(outs, means):
                zeros_pass = zeros_pass and _within(out, 0.0, tolerance)
                mean_passes = mean_passes and _within(out, mean, tolerance)
        del outs
    return {"device": device, "draws": draws - 1, "zeros_pass": zeros_pass, "mean_passes": mean_passes}
