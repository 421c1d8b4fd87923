"""Runs the bridge's Reference (eager) on the CPU for a task JSON written by kernelpro
(to_json(TaskSpec)), through raw pointers as the worker does, and checks its outputs against the
module built the way KernelBench's harness builds it. Used by tests/kernelbench/import_test.cpp.

    python3 bridge_on_cpu.py TASK.json
Prints "ok" and exits 0, else says what differs and exits 1."""
import json
import sys

import torch

from kernelpro_torch.bridge import Reference, example_input
from kernelpro_torch.problem import TORCH_DTYPE, load_problem
from kernelpro_torch.safetensors_io import read_safetensors


def main(path: str) -> int:
    text = open(path).read()
    task = json.loads(text)
    ref = task["reference"]
    reference = Reference(text, "eager", device="cpu")
    n = ref["forward_inputs"]
    args = [example_input(spec, "cpu") for spec in task["inputs"][:n]]
    outs = [torch.full(spec["shape"], float("nan")).to(TORCH_DTYPE[spec["dtype"]]) for spec in task["outputs"]]
    reference.forward(tuple(a.data_ptr() for a in args), tuple(o.data_ptr() for o in outs), 1)
    reference.finish(tuple(o.data_ptr() for o in outs), 1)
    # KernelBench's way: seed, get_init_inputs, seed, Model(*init), cast.
    problem = load_problem(ref["pytorch"])
    model = problem.build_model({"f32": "fp32", "f16": "fp16", "bf16": "bf16"}[ref["dtype"]], ref["seed"])
    stored = {}
    for spec in task["inputs"][n:]:
        stored.update(read_safetensors(spec["distribution"]["file"]))
    named = dict(model.named_parameters())
    named.update(dict(model.named_buffers()))
    for name, value in named.items():
        if not torch.equal(value, stored[name]):
            print(f"parameter {name} differs from the stored value")
            return 1
    call = list(args)
    for c in sorted(ref.get("constants", []), key=lambda c: c["position"]):
        call.insert(c["position"], c["value"])
    with torch.no_grad():
        expected = model(*call)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    for got, want, spec in zip(outs, expected, task["outputs"]):
        if not torch.allclose(got, want, atol=1e-6, rtol=1e-6):
            print(f"output {spec['name']} differs: max error {(got - want).abs().max().item()}")
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
