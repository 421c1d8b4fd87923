#!/usr/bin/env python3
"""Wall time per candidate: the KernelBench-style path against kernelpro, side by side (issue 16).

For each kernel the same source, tasks/<task>/candidates/fast.cu, goes down both paths:
  KernelBench path: torch.utils.cpp_extension.load_inline compiles it into a PyTorch extension (a
    small wrapper hands PyTorch tensors to its kp_forward), then 5 correctness trials against the
    PyTorch op on inputs drawn on the CPU, then 3 warm-up + 100 timed calls with CUDA events and an
    L2 flush per call (KernelBench's cuda_event method).
  kernelpro path: `kernelpro eval` with a cold compile cache (wall time of the whole command).
Runs on the GPU machine (python3 with PyTorch). Prints a table.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# task, input shape and dtype (as task.toml says), the PyTorch op, output shape, tolerance
KERNELS = [
    ("gelu_f16", (16384, 16384), torch.float16, lambda x: F.gelu(x.float()).half(), (16384, 16384), 1e-2),
    ("softmax_rows_f32", (16384, 8192), torch.float32, lambda x: torch.softmax(x, dim=1), (16384, 8192), 1e-4),
    ("transpose_f32", (8192, 16384), torch.float32, lambda x: x.t().contiguous(), (16384, 8192), 1e-4),
]

WRAPPER = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <vector>
static kp_tensor kp_view(const torch::Tensor& t) {
    kp_tensor k{};
    k.data = t.data_ptr();
    k.dtype = t.scalar_type() == torch::kFloat16 ? KP_F16 : t.scalar_type() == torch::kBFloat16 ? KP_BF16 : KP_F32;
    k.ndim = (int)t.dim();
    for (int d = 0; d < k.ndim; ++d) { k.shape[d] = t.size(d); k.stride[d] = t.stride(d); }
    return k;
}
void run(std::vector<torch::Tensor> ins, std::vector<torch::Tensor> outs) {
    std::vector<kp_tensor> a, b;
    for (auto& t : ins) a.push_back(kp_view(t));
    for (auto& t : outs) b.push_back(kp_view(t));
    int rc = kp_forward(a.data(), (int)a.size(), b.data(), (int)b.size(), at::cuda::getCurrentCUDAStream());
    TORCH_CHECK(rc == 0, "kp_forward returned ", rc);
}
"""


def kernelbench_path(task, shape, dtype, op, out_shape, tol, include_dir):
    source = open(os.path.join(ROOT, "tasks", task, "candidates", "fast.cu")).read()
    start = time.perf_counter()
    build_dir = tempfile.mkdtemp(prefix="kb-ext-")
    module = load_inline(name=f"kb_{task}", cpp_sources="void run(std::vector<torch::Tensor> ins, std::vector<torch::Tensor> outs);",
                         cuda_sources=source + WRAPPER, functions=["run"], extra_include_paths=[include_dir],
                         build_directory=build_dir, verbose=False)
    compiled = time.perf_counter()
    gen = torch.Generator(device="cpu").manual_seed(42)
    for _ in range(5):
        x = torch.randn(*shape, generator=gen).to("cuda", dtype)
        ref = op(x)
        out = torch.empty(out_shape, dtype=dtype, device="cuda")
        module.run([x], [out])
        torch.cuda.synchronize()
        assert torch.allclose(out.float(), ref.float(), atol=tol, rtol=tol), task
    verified = time.perf_counter()
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    times = []
    for i in range(103):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.fill_(i)
        s.record()
        module.run([x], [out])
        e.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(s.elapsed_time(e))
    done = time.perf_counter()
    shutil.rmtree(build_dir, ignore_errors=True)
    return {"compile": compiled - start, "verify": verified - compiled, "time": done - verified, "total": done - start,
            "median_ms": sorted(times)[len(times) // 2], "status": "ok"}


def kernelpro_path(kernelpro, task):
    env = dict(os.environ, KERNELPRO_CACHE_DIR=tempfile.mkdtemp(prefix="kp-cold-"))
    start = time.perf_counter()
    r = subprocess.run([kernelpro, "eval", os.path.join(ROOT, "tasks", task),
                        os.path.join(ROOT, "tasks", task, "candidates", "fast.cu"), "--json", "-q"],
                       capture_output=True, text=True, env=env)
    total = time.perf_counter() - start
    try:
        report = json.loads(r.stdout)
    except Exception:
        print(r.stdout, r.stderr, file=sys.stderr)
        raise
    sec = report["seconds"]
    return {"compile": sec["compile"], "verify": sec["verify"], "time": sec["time"], "total": total,
            "median_ms": report["timing"]["candidate"]["median"] * 1e3, "status": report["status"]}


def main():
    parser = argparse.ArgumentParser(description="Wall time per candidate: the KernelBench-style path against kernelpro")
    parser.add_argument("kernelpro", nargs="?", default=shutil.which("kernelpro"), help="the kernelpro executable")
    parser.add_argument("--only", nargs="+", choices=[k[0] for k in KERNELS], help="run these kernels only")
    args = parser.parse_args()
    if not args.kernelpro:
        sys.exit("kernelbench_path: no kernelpro executable given or on PATH")
    kernelpro = args.kernelpro
    kernels = [k for k in KERNELS if not args.only or k[0] in args.only]
    include_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(kernelpro))), "include")
    if not os.path.exists(os.path.join(include_dir, "kernelpro", "abi.h")):
        include_dir = os.path.join(ROOT, "include")
    # Rows are printed as each kernel finishes, so a run cut short still leaves what it measured.
    print("\n| kernel | path | compile s | verify s | time s | total wall s | kernel median ms |")
    print("|---|---|---|---|---|---|---|", flush=True)
    ratios = []
    for task, shape, dtype, op, out_shape, tol in kernels:
        ours = kernelpro_path(kernelpro, task)
        theirs = kernelbench_path(task, shape, dtype, op, out_shape, tol, include_dir)
        ratios.append(theirs["total"] / ours["total"])
        for name, r in (("KernelBench-style (load_inline)", theirs), (f"kernelpro eval ({ours['status']})", ours)):
            print(f"| {task} | {name} | {r['compile']:.2f} | {r['verify']:.2f} | {r['time']:.2f} | {r['total']:.2f} | "
                  f"{r['median_ms']:.4f} |", flush=True)
    print("\nwall time per candidate, KernelBench-style over kernelpro: " + ", ".join(f"{k[0]} {r:.1f}x" for k, r in zip(kernels, ratios)))


if __name__ == "__main__":
    main()
