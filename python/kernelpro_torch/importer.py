"""One KernelBench-format problem in, the facts of a kernelpro task out.

Writes into the task folder: problem.py (the original source, for the live reference and the
writer's prompt) and parameters.safetensors (every parameter and buffer, from the module's own
init under the seed, in the precision), and returns a JSON-able description that kernelpro (C++)
turns into task.toml: the forward inputs with their distributions, the parameters, the outputs,
the cost, the tolerance, the flags. Inputs are never drawn on the CPU: shapes come from running
get_inputs() and forward() on the meta device."""
from __future__ import annotations

import copy
import shutil
import time
from pathlib import Path

import torch

from . import input_laws
from .constant_check import check_constant_outputs
from .cost_count import count_forward
from .problem import DEFAULT_SEED, DTYPES, TASK_DTYPE, TOLERANCE, Problem, Unconvertible, load_problem, looks_like_download
from .safetensors_io import write_safetensors


def _traced_draw(problem: Problem, seed: int):
    torch.manual_seed(seed)
    tracker = input_laws.LawTracker()
    try:
        with torch.device("meta"), tracker:
            values = problem.module.get_inputs()
    except Exception as e:
        raise Unconvertible(f"get_inputs() fails on the meta device: {type(e).__name__}: {e}")
    if not isinstance(values, (list, tuple)):
        raise Unconvertible(f"get_inputs() returns a {type(values).__name__}, not a list")
    return list(values), tracker


def _trace_inputs(problem: Problem, precision: str, seed: int) -> tuple[list[dict], list[dict]]:
    """(tensor inputs, constant Python arguments). get_inputs runs twice, with different seeds: a
    Python number that differs between the draws cannot be a constant of the task."""
    values, tracker = _traced_draw(problem, seed)
    again, _ = _traced_draw(problem, seed + 1)
    names = problem.forward_argument_names(len(values))
    inputs, constants = [], []
    for position, (name, value) in enumerate(zip(names, values)):
        if not isinstance(value, torch.Tensor):
            if not isinstance(value, (bool, int, float)):
                raise Unconvertible(f"forward argument '{name}' is a Python {type(value).__name__}: kernels receive tensors only")
            if len(again) != len(values) or again[position] != value:
                raise Unconvertible(f"forward argument '{name}' is a Python {type(value).__name__} that changes between draws "
                                    "(a kernel's shapes and constants are fixed)")
            constants.append({"name": name, "position": position, "value": value})
            continue
        law = tracker.law_of(value)
        if law.kind == "structured":
            raise Unconvertible(f"input '{name}' is not a set of independent random draws ({law.note}), "
                                "which a task's distributions cannot describe")
        if law.kind == "constant":
            raise Unconvertible(f"input '{name}' is the constant {law.a:g}, not a random draw")
        # KernelBench's harness casts every tensor input to the precision, integer ones included.
        inputs.append({"name": name, "dtype": TASK_DTYPE[DTYPES[precision]], "shape": list(value.shape),
                       "distribution": law.to_json(), "note": law.note})
    return inputs, constants


def _state_tensors(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Every parameter and buffer by its state_dict name, in state_dict order; a tensor shared under
    two names comes once (first name); non-persistent buffers follow."""
    named, seen = {}, set()
    everything = list(model.state_dict(keep_vars=True).items())
    everything += list(model.named_parameters()) + list(model.named_buffers())
    for name, tensor in everything:
        if name not in named and id(tensor) not in seen:
            named[name] = tensor
            seen.add(id(tensor))
    return named


def _unique(name: str, taken: set) -> str:
    candidate = name
    while candidate in taken:
        candidate += "_"
    taken.add(candidate)
    return candidate


def _meta_model(problem: Problem, model: torch.nn.Module, precision: str, seed: int) -> torch.nn.Module:
    init = problem.init_inputs(seed)
    try:
        with torch.device("meta"):
            meta = problem.model_class(*[x.to("meta") if isinstance(x, torch.Tensor) else x for x in init])
        return meta.to(dtype=DTYPES[precision])
    except Exception:
        return copy.deepcopy(model).to("meta")


def _with_constants(tensors: list, constants: list[dict]) -> list:
    args = list(tensors)
    for c in constants:
        args.insert(c["position"], c["value"])
    return args


def _run_forward(problem: Problem, model: torch.nn.Module, inputs: list[dict], constants: list[dict], precision: str, seed: int):
    """The output (meta tensors when possible) and the cost of one forward call."""
    meta_inputs = [torch.empty(i["shape"], dtype=DTYPES[precision], device="meta") for i in inputs]
    try:
        return count_forward(_meta_model(problem, model, precision, seed), _with_constants(meta_inputs, constants))
    except Exception as meta_error:
        reason = f"{type(meta_error).__name__}: {str(meta_error).splitlines()[0] if str(meta_error) else ''}"
    device = "cuda" if torch.cuda.is_available() else None
    elements = sum(torch.Size(i["shape"]).numel() for i in inputs)
    if device is None and elements > (1 << 24):
        raise Unconvertible(f"forward() cannot run on the meta device ({reason}) and its inputs are too large "
                            "to run it on the CPU here (import on a machine with a GPU)")
    torch.manual_seed(seed)
    with torch.device(device or "cpu"):
        real = [x.to(dtype=DTYPES[precision]) if isinstance(x, torch.Tensor) else x for x in problem.module.get_inputs()]
    try:
        return count_forward(copy.deepcopy(model).to(device or "cpu"), real)
    except Exception as e:
        raise Unconvertible(f"forward() fails: {type(e).__name__}: {e}")


def _outputs(output, taken: set) -> list[dict]:
    values = list(output) if isinstance(output, (tuple, list)) else [output]
    if not values:
        raise Unconvertible("forward() returns an empty sequence")
    outs = []
    for k, value in enumerate(values):
        if not isinstance(value, torch.Tensor):
            raise Unconvertible(f"forward() returns a {type(value).__name__} (output {k}), not a tensor")
        if value.dtype not in TASK_DTYPE:
            raise Unconvertible(f"output {k} has dtype {value.dtype}, which kernels cannot produce here")
        name = _unique("output" if len(values) == 1 else f"output{k}", taken)
        outs.append({"name": name, "dtype": TASK_DTYPE[value.dtype], "shape": list(value.shape)})
    return outs


def import_problem(path: str, out_dir: str, precision: str = "fp32", check_constant: str = "auto",
                   seed: int = DEFAULT_SEED) -> dict:
    """Returns {"status": "converted", ...facts} or {"status": "unconvertible", "reason": ...}."""
    start = time.monotonic()
    try:
        facts = _import(Path(path), Path(out_dir), precision, check_constant, seed)
        facts["status"] = "converted"
    except Unconvertible as e:
        facts = {"status": "unconvertible", "reason": str(e)}
    facts.update({"file": str(path), "precision": precision, "seconds": round(time.monotonic() - start, 3)})
    return facts


def _import(path: Path, out_dir: Path, precision: str, check_constant: str, seed: int) -> dict:
    if precision not in DTYPES:
        raise Unconvertible(f"unknown precision '{precision}' (fp32, fp16, bf16)")
    problem = load_problem(path)
    inputs, constants = _trace_inputs(problem, precision, seed)
    try:
        model = problem.build_model(precision, seed)
    except Exception as e:
        if looks_like_download(e):
            raise Unconvertible(f"building the model needs a download: {type(e).__name__}: {e}")
        raise Unconvertible(f"building the model failed: {type(e).__name__}: {e}")
    state = _state_tensors(model)
    taken = set(state)
    for i in inputs:  # parameters keep their state_dict names; a forward argument gives way
        i["name"] = _unique(i["name"], taken)
    parameters, stored = [], {}
    for name, tensor in state.items():
        if tensor.dtype not in TASK_DTYPE:
            raise Unconvertible(f"parameter '{name}' has dtype {tensor.dtype}, which kernels cannot take here")
        parameters.append({"name": name, "dtype": TASK_DTYPE[tensor.dtype], "shape": list(tensor.shape)})
        stored[name] = tensor.detach()
    output, cost = _run_forward(problem, model, inputs, constants, precision, seed)
    outputs = _outputs(output, taken)
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, out_dir / "problem.py")
    has_parameters = bool(stored)
    if has_parameters:
        write_safetensors(out_dir / "parameters.safetensors", stored)
    del stored, state  # the model itself goes on to the constant check
    tolerance = TOLERANCE[precision]
    elements = sum(torch.Size(t["shape"]).numel() for t in inputs + outputs)
    constant = {"skipped": "not asked"} if check_constant == "off" else \
        check_constant_outputs(problem, model, precision, tolerance, elements, cost.flops)
    if check_constant == "on" and "skipped" in constant:
        raise Unconvertible(f"the constant-output check was required but could not run: {constant['skipped']}")
    flags = ["degenerate"] if constant.get("zeros_pass") or constant.get("mean_passes") else []
    notes = [f"input '{i['name']}': {i['note']}" for i in inputs if i["note"]]
    notes += [f"forward argument '{c['name']}' is always {c['value']!r} (get_inputs passes it; kernels receive tensors only)"
              for c in constants]
    if constant.get("zeros_pass"):
        notes.append(f"an all-zeros output passes the {precision} tolerance on every draw")
    elif constant.get("mean_passes"):
        notes.append(f"an output set to its mean everywhere passes the {precision} tolerance on every draw")
    dropout = [m for m in model.modules() if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0]
    if dropout:
        notes.append(f"the module is in training mode with dropout p={dropout[0].p}: its output is random")
    doc = (problem.model_class.__doc__ or "").strip().splitlines()
    return {"inputs": [{k: v for k, v in i.items() if k != "note"} for i in inputs], "parameters": parameters,
            "constants": constants, "summary": doc[0].strip() if doc else "",
            "outputs": outputs, "tolerance": tolerance, "seed": seed,
            "flops": cost.flops, "flops_counted": cost.counted_flops, "flops_elementwise": cost.elementwise_flops,
            "cost_precision": {"fp32": "tf32" if cost.counted_flops > 0 else "f32", "fp16": "f16", "bf16": "bf16"}[precision],
            "constant_check": constant, "flags": flags, "notes": notes,
            "files": {"source": "problem.py", "parameters": "parameters.safetensors" if has_parameters else ""}}
