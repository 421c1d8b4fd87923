"""A problem in KernelBench's format: a Python file defining `class Model(nn.Module)`,
`get_inputs()` and `get_init_inputs()`, loaded the way KernelBench's harness loads it (executed as
a fresh module) and built the way it builds it (torch.manual_seed(seed) before get_init_inputs()
and again before Model(*init_inputs), then cast to the precision)."""
from __future__ import annotations

import dataclasses
import inspect
import types
from pathlib import Path

import torch

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
TASK_DTYPE = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
              torch.int32: "i32", torch.int64: "i64", torch.uint8: "u8", torch.bool: "bool"}
TORCH_DTYPE = {v: k for k, v in TASK_DTYPE.items()}
# KernelBench's tolerances (atol = rtol) for each precision.
TOLERANCE = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}
DEFAULT_SEED = 42


class Unconvertible(Exception):
    """The problem cannot become a task; the message is the one clear reason."""


@dataclasses.dataclass
class Problem:
    path: Path
    source: str
    module: types.ModuleType

    @property
    def model_class(self):
        return self.module.Model

    def forward_argument_names(self, count: int) -> list[str]:
        """forward's parameter names (after self), input0.. for *args or when they run out."""
        try:
            params = list(inspect.signature(self.model_class.forward).parameters.values())[1:]
        except (TypeError, ValueError):
            params = []
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return [names[i] if i < len(names) else f"input{i}" for i in range(count)]

    def init_inputs(self, seed: int = DEFAULT_SEED) -> list:
        torch.manual_seed(seed)
        return list(self.module.get_init_inputs())

    def build_model(self, precision: str, seed: int = DEFAULT_SEED, device: str = "cpu") -> torch.nn.Module:
        """The module exactly as KernelBench's harness builds it (weights from its own init under the
        seed), cast to the precision and moved to `device`."""
        dtype = DTYPES[precision]
        init = [x.to(dtype=dtype) if isinstance(x, torch.Tensor) else x for x in self.init_inputs(seed)]
        with torch.no_grad():
            torch.manual_seed(seed)
            model = self.model_class(*init)
        return model.to(device=device, dtype=dtype)


def load_problem(path: str | Path) -> Problem:
    path = Path(path)
    try:
        source = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise Unconvertible(f"not UTF-8 text ({e.reason} at byte {e.start})")
    except OSError as e:
        raise Unconvertible(f"cannot read: {e.strerror}")
    module = types.ModuleType(f"kernelbench_problem_{abs(hash(str(path.resolve())))}")
    module.__file__ = str(path)
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as e:
        raise Unconvertible(f"Python syntax error at line {e.lineno}: {e.msg}")
    try:
        exec(code, module.__dict__)
    except ModuleNotFoundError as e:
        raise Unconvertible(f"needs the Python package '{e.name}', which is not installed")
    except Exception as e:  # the problem's own top-level code failed
        raise Unconvertible(f"running the file failed: {type(e).__name__}: {e}")
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, name):
            raise Unconvertible(f"not in KernelBench's format: no '{name}' defined")
    if not (isinstance(module.Model, type) and issubclass(module.Model, torch.nn.Module)):
        raise Unconvertible("not in KernelBench's format: 'Model' is not an nn.Module class")
    return Problem(path, source, module)


def looks_like_download(error: BaseException) -> bool:
    """Errors that mean the model wanted the network (pretrained weights, hub downloads)."""
    text = f"{type(error).__name__}: {error}".lower()
    return any(word in text for word in ("urlopen", "connection", "download", "http", "name resolution", "hub"))
