"""What a problem's get_inputs() draws, found without drawing it.

get_inputs() runs on the meta device (shapes and dtypes, no data: a level-1 input of 1.6e9 floats
costs nothing) under a TorchFunctionMode that follows each tensor from the random factory that made
it (torch.rand, randn, randint, ...) through the operations the task format can still express:
affine maps with Python numbers, dtype conversions, reshapes and transposes. Anything else (the sum
of two draws, triu, softmax, ...) makes the input "structured": its elements are not independent
draws from one distribution, which the task format cannot describe, so the problem is reported as
unconvertible with that reason.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

import torch
from torch.overrides import TorchFunctionMode


@dataclasses.dataclass(frozen=True)
class Law:
    """The distribution of every element of a tensor: uniform [a, b), normal (mean a, std b),
    integer [a, b] inclusive, a constant a, or structured (why in `note`)."""

    kind: str
    a: float = 0.0
    b: float = 0.0
    note: str = ""  # an approximation made (kept), or why the law is structured

    def with_note(self, note: str) -> "Law":
        joined = f"{self.note}; {note}" if self.note else note
        return dataclasses.replace(self, note=joined)

    def to_json(self) -> dict:
        if self.kind == "uniform":
            return {"kind": "uniform", "low": self.a, "high": self.b}
        if self.kind == "normal":
            return {"kind": "normal", "mean": self.a, "std": self.b}
        if self.kind == "integer":
            return {"kind": "integer", "low": self.a, "high": self.b}
        raise ValueError(f"a {self.kind} law has no task distribution")


def structured(why: str) -> Law:
    return Law("structured", note=why)


def _affine(law: Law, scale: float, shift: float, what: str) -> Law:
    """The law of scale * x + shift."""
    if law.kind == "constant":
        return Law("constant", law.a * scale + shift)
    if law.kind == "structured":
        return law
    if scale == 0:
        return Law("constant", shift)
    if law.kind == "uniform":
        lo, hi = sorted((law.a * scale + shift, law.b * scale + shift))
        return Law("uniform", lo, hi, law.note)
    if law.kind == "normal":
        return Law("normal", law.a * scale + shift, law.b * abs(scale), law.note)
    lo, hi = sorted((law.a * scale + shift, law.b * scale + shift))
    if float(scale).is_integer() and float(shift).is_integer() and abs(scale) == 1:
        return Law("integer", lo, hi, law.note)
    if float(scale).is_integer() and float(shift).is_integer():
        # {lo, lo+scale, ...} is not a contiguous integer range: every integer in between is drawn.
        return Law("integer", lo, hi, law.note).with_note(
            f"get_inputs draws integers {abs(int(scale))} apart; the task draws every integer of the same range")
    return structured(f"{what} maps integer draws to non-integers")


_VIEWS = {"view", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "transpose", "permute", "t",
          "contiguous", "clone", "detach", "expand", "expand_as", "view_as", "reshape_as", "movedim",
          "requires_grad_", "cpu", "cuda"}
_PROPERTIES = {torch.Tensor.T.__get__, torch.Tensor.mT.__get__}
_CASTS = {"float": torch.float32, "double": torch.float64, "half": torch.float16, "bfloat16": torch.bfloat16,
          "long": torch.int64, "int": torch.int32, "bool": torch.bool, "byte": torch.uint8}
_AFFINE_OPS = {"mul", "__mul__", "__rmul__", "add", "__add__", "__radd__", "sub", "__sub__", "__rsub__",
               "div", "__truediv__", "true_divide", "neg", "__neg__"}


def _factory_law(name: str, args, kwargs) -> Optional[Law]:
    if name in ("rand", "rand_like"):
        return Law("uniform", 0.0, 1.0)
    if name in ("randn", "randn_like"):
        return Law("normal", 0.0, 1.0)
    if name in ("randint", "randint_like"):
        numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
        if name == "randint_like":
            numbers = [a for a in args[1:] if isinstance(a, (int, float))]
        low, high = (0, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
        low, high = kwargs.get("low", low), kwargs.get("high", high)
        return Law("integer", float(low), float(high) - 1)
    if name in ("zeros", "zeros_like"):
        return Law("constant", 0.0)
    if name in ("ones", "ones_like"):
        return Law("constant", 1.0)
    if name in ("full", "full_like"):
        value = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
        return Law("constant", float(value)) if isinstance(value, (int, float)) else None
    if name in ("empty", "empty_like", "empty_strided"):
        return structured(f"torch.{name} leaves the values undefined")
    if name in ("tensor", "as_tensor", "arange", "linspace", "logspace", "eye", "from_numpy", "frombuffer"):
        return structured(f"torch.{name} builds fixed values, not random draws")
    return None


class LawTracker(TorchFunctionMode):
    """Follows every tensor made inside the mode; law_of(t) answers for the tensors get_inputs returns."""

    def __init__(self):
        super().__init__()
        self._laws: dict[int, tuple[torch.Tensor, Law]] = {}

    def law_of(self, tensor: torch.Tensor) -> Law:
        entry = self._laws.get(id(tensor))
        if entry is None or entry[0] is not tensor:
            return structured("made by an operation kernelpro does not follow")
        return entry[1]

    def _known(self, value) -> Optional[Law]:
        if isinstance(value, torch.Tensor):
            entry = self._laws.get(id(value))
            return entry[1] if entry is not None and entry[0] is value else None
        return None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor):
            law = self._derive(func, args, kwargs)
            if law is not None:
                self._laws[id(out)] = (out, law)
        return out

    def _derive(self, func, args, kwargs) -> Optional[Law]:
        name = getattr(func, "__name__", str(func))
        if func in _PROPERTIES:
            return self._known(args[0])
        tensor_laws = [(a, self._known(a)) for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
        if not tensor_laws:
            return _factory_law(name, args, kwargs)
        followed = [law for _, law in tensor_laws if law is not None]
        if not followed:
            return None
        first = followed[0]
        if name in _VIEWS or name == "__getitem__" and len(tensor_laws) == 1:
            return first
        if name in _CASTS or name in ("to", "type"):
            return self._cast(first, name, args, kwargs)
        if name in _AFFINE_OPS:
            return self._affine_op(name, args, tensor_laws)
        if all(law.kind == "constant" for law in followed):
            return None  # a fixed tensor the mode no longer follows; if returned, it is reported as unknown
        return structured(f"{name}(...) of random values")

    def _cast(self, law: Law, name: str, args, kwargs) -> Law:
        dtype = _CASTS.get(name)
        if dtype is None:
            dtype = kwargs.get("dtype") or next((a for a in args[1:] if isinstance(a, torch.dtype)), None)
        if dtype is None or dtype.is_floating_point:
            return law
        if law.kind == "integer" or law.kind == "constant":
            if dtype == torch.bool:
                return Law("integer", float(law.a != 0), float(law.b != 0), law.note) if law.kind == "integer" else law
            return law
        if law.kind == "uniform" and dtype != torch.bool:
            return Law("integer", math.floor(law.a), math.ceil(law.b) - 1, law.note).with_note(
                f"{name}: truncated uniform draws taken as integers in the same range")
        return structured(f"{name}() of continuous random values")

    def _affine_op(self, name: str, args, tensor_laws) -> Law:
        tensors = [(a, law) for a, law in tensor_laws]
        numbers = [a for a in args if isinstance(a, (int, float)) and not isinstance(a, bool)]
        if len(tensors) == 2:
            (_, l0), (t1, l1) = tensors
            scale_law, other = (l1, l0) if t1.dim() == 0 else (l0, l1)
            scalar = tensors[1][0] if t1.dim() == 0 else tensors[0][0]
            if name in ("mul", "__mul__", "__rmul__") and scalar.dim() == 0 and scale_law is not None \
                    and scale_law.kind == "uniform" and scale_law.a >= 0 and other is not None and other.kind == "uniform":
                hi = max(abs(other.a), abs(other.b)) * scale_law.b
                return Law("uniform", min(0.0, other.a * scale_law.b), hi, other.note).with_note(
                    "get_inputs scales by a random factor drawn once per call; the task draws the full scaled range")
            return structured(f"{name}(...) of two tensors")
        law = tensors[0][1]
        value = float(numbers[0]) if numbers else None
        if name in ("neg", "__neg__"):
            return _affine(law, -1.0, 0.0, name)
        if value is None:
            return structured(f"{name}(...) with a non-numeric operand")
        if name in ("mul", "__mul__", "__rmul__"):
            return _affine(law, value, 0.0, name)
        if name in ("add", "__add__", "__radd__"):
            return _affine(law, 1.0, value, name)
        if name in ("sub", "__sub__"):
            return _affine(law, 1.0, -value, name)
        if name == "__rsub__":
            return _affine(law, -1.0, value, name)
        if value == 0:
            return structured("division by zero")
        return _affine(law, 1.0 / value, 0.0, name)
