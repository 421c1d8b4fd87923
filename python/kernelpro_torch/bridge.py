"""The Python half of kernelpro's trusted PyTorch reference libraries (src/pytorch_bridge/).

A Reference is made once per worker and per mode ("eager": the module as written; "compile":
torch.compile(module), default mode) from the task kernelpro sends. The module is built as
KernelBench builds it (problem.py), on the GPU, with the task's stored parameters and buffers
(parameters.safetensors: the same values the kernel receives as inputs), cast to the task's dtype,
left in training mode as KernelBench leaves it. Before the first timed call it runs twice on example
inputs, so torch.compile's compilation and every lazy library load (cuBLAS, cuDNN, Triton) happen
outside the timed region; eager and compile share one module.

forward() wraps the harness's buffers as tensors (no copy; device_views) and calls the module on the
harness's stream; finish(), which the worker calls after the timed region, copies the result into
the harness's outputs. So the time measured is the module's forward (its own output allocations
included, from PyTorch's caching allocator), as KernelBench's timing measures it, plus the bridge's
host overhead (a few microseconds: the GIL, two tuples of pointers, one dictionary lookup per input).
"""
from __future__ import annotations

import json
import sys
import traceback

import torch

from .device_views import ViewCache
from .problem import TORCH_DTYPE, load_problem
from .safetensors_io import read_safetensors

_MODULES: dict[tuple, torch.nn.Module] = {}  # one module per task, shared by the eager and compile bridges
_LEGACY_STREAMS = (0, 1)  # the null stream and cudaStreamLegacy: both are PyTorch's default stream here


def set_tf32(allowed: bool) -> None:
    """The task's TF32 policy, for matmuls and cuDNN convolutions alike."""
    precision = "tf32" if allowed else "ieee"
    try:
        torch.backends.cuda.matmul.fp32_precision = precision
        torch.backends.cudnn.conv.fp32_precision = precision
        torch.backends.cudnn.rnn.fp32_precision = precision
    except (AttributeError, RuntimeError):
        torch.backends.cuda.matmul.allow_tf32 = allowed
        torch.backends.cudnn.allow_tf32 = allowed


def example_input(spec: dict, device: str = "cuda") -> torch.Tensor:
    """A draw from the input's distribution (for warm-up calls, never for checking)."""
    dtype = TORCH_DTYPE[spec["dtype"]]
    d, shape = spec["distribution"], spec["shape"]
    kind, a, b = d["kind"], d.get("a", 0.0), d.get("b", 1.0)
    if kind == "normal":
        values = torch.randn(shape, device=device) * b + a
    elif kind == "integer":
        values = torch.randint(int(a), int(b) + 1, shape, device=device)
    else:
        values = torch.rand(shape, device=device) * (b - a) + a
    return values.to(dtype)


def _stored_values(task: dict) -> dict[str, torch.Tensor]:
    values, files = {}, {}
    for spec in task["inputs"]:
        d = spec["distribution"]
        if d["kind"] == "fixed":
            path = d["file"]
            if path not in files:
                files[path] = read_safetensors(path)
            values[spec["name"]] = files[path][spec["name"]]
    return values


def _holds_plain_meta_tensors(model: torch.nn.Module) -> bool:
    """A tensor kept as a plain attribute (not a parameter or buffer) is not moved by to_empty."""
    for m in model.modules():
        for value in vars(m).values():
            if isinstance(value, torch.Tensor) and value.is_meta:
                return True
    return False


def build_module(task: dict, device: str = "cuda") -> torch.nn.Module:
    """The task's module on `device`, holding the stored parameter and buffer values."""
    ref = task["reference"]
    problem = load_problem(ref["pytorch"])
    dtype = TORCH_DTYPE[ref["dtype"]]
    stored = _stored_values(task)
    precision = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, "fp32")
    model = problem.build_model(precision, int(ref["seed"]), device="cpu") if not stored else None
    if model is None:
        try:  # no init work on the CPU: build on meta, allocate on the device, fill from the file
            init = problem.init_inputs(int(ref["seed"]))
            with torch.device("meta"):
                model = problem.model_class(*init)
            model = model.to_empty(device=device).to(dtype=dtype)
            named = dict(model.named_parameters())
            named.update(dict(model.named_buffers()))
            if set(named) - set(stored):
                raise KeyError("module tensors missing from the stored values")
            if _holds_plain_meta_tensors(model):
                raise ValueError("tensors kept as plain attributes stay on the meta device")
        except Exception:
            model = problem.build_model(precision, int(ref["seed"]), device="cpu")
        named = dict(model.named_parameters())
        named.update(dict(model.named_buffers()))
        with torch.no_grad():
            for name, tensor in named.items():
                if name in stored:
                    tensor.copy_(stored[name].to(tensor.device))
    return model.to(device)


def _module_for(task: dict, device: str) -> torch.nn.Module:
    ref = task["reference"]
    key = (ref["pytorch"], ref["dtype"], ref["seed"], json.dumps(task["inputs"], sort_keys=True), device)
    if key not in _MODULES:
        _MODULES[key] = build_module(task, device)
    return _MODULES[key]


def _explained(what: str):
    """Prints the traceback to the worker's log and raises one line for the failure message."""
    def wrap(method):
        def run(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                raise RuntimeError(f"{what}: {type(e).__name__}: {e}") from None
        return run
    return wrap


class Reference:
    @_explained("starting the PyTorch reference")
    def __init__(self, task_json: str, mode: str, device: str = "cuda"):
        """`device` is "cuda" in the worker; "cpu" serves the tests of the bridge on machines without a GPU."""
        task = json.loads(task_json)
        ref = task["reference"]
        if mode not in ("eager", "compile"):
            raise ValueError(f"unknown mode {mode}")
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")
        self.device = device
        set_tf32(bool(ref.get("tf32", False)))
        self.mode = mode
        self.forward_inputs = int(ref["forward_inputs"])
        self.input_specs = task["inputs"][: self.forward_inputs]
        self.constants = sorted((c["position"], c["value"]) for c in ref.get("constants", []))
        self.output_specs = task["outputs"]
        self.module = _module_for(task, device)
        self.run = self.module if mode == "eager" else torch.compile(self.module)
        self.views = ViewCache(device)
        self.pending = None
        self._warm_up()

    def _warm_up(self) -> None:
        examples = self._arguments([example_input(s, self.device) for s in self.input_specs])
        with torch.no_grad():
            for _ in range(2):
                self._check_outputs(self.run(*examples))
        if self.device == "cuda":
            torch.cuda.synchronize()
        del examples

    def _arguments(self, tensors: list) -> list:
        for position, value in self.constants:
            tensors.insert(position, value)
        return tensors

    def _check_outputs(self, result) -> tuple:
        outs = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(outs) != len(self.output_specs):
            raise RuntimeError(f"the module returned {len(outs)} outputs, the task has {len(self.output_specs)}")
        for out, spec in zip(outs, self.output_specs):
            if not isinstance(out, torch.Tensor):
                raise RuntimeError(f"output '{spec['name']}' is a {type(out).__name__}")
            if list(out.shape) != list(spec["shape"]) or out.dtype != TORCH_DTYPE[spec["dtype"]]:
                raise RuntimeError(f"output '{spec['name']}' is {out.dtype} {list(out.shape)}, the task says "
                                   f"{spec['dtype']} {spec['shape']}")
        return outs

    @_explained("forward")
    def forward(self, inputs: tuple, outputs: tuple, stream: int) -> None:
        args = self._arguments([self.views.tensor(p, s) for p, s in zip(inputs, self.input_specs)])
        with torch.no_grad():
            if stream in _LEGACY_STREAMS:
                self.pending = self.run(*args)
            else:
                with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
                    self.pending = self.run(*args)

    @_explained("delivering the outputs")
    def finish(self, outputs: tuple, stream: int) -> None:
        result, self.pending = self.pending, None
        if result is None:
            raise RuntimeError("finish without a forward call")
        for out, pointer, spec in zip(self._check_outputs(result), outputs, self.output_specs):
            self.views.tensor(pointer, spec).copy_(out)
