#!/usr/bin/env python3
"""Wall time per candidate: the KernelBench-style path against kernelpro, side by side (issue 2 §10 d).

KernelBench path: torch.utils.cpp_extension.load_inline compiles the kernel into a PyTorch extension,
then 5 correctness trials against the PyTorch reference and 3 warm-up + 100 timed calls with CUDA
events and an L2 flush per call (KernelBench's cuda_event method).
kernelpro path: `kernelpro eval` on the same GELU fp16 kernel, cold compile cache.
Runs on the GPU machine (python3 with PyTorch). Prints a table.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
from torch.utils.cpp_extension import load_inline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CUDA_SRC = r"""
#include <torch/extension.h>
#include <cuda_fp16.h>
__global__ void gelu_kernel(const __half* x, __half* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        y[i] = __float2half(0.5f * v * (1.0f + erff(v * 0.70710678118654752f)));
    }
}
torch::Tensor gelu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    gelu_kernel<<<(n + 255) / 256, 256>>>((const __half*)x.data_ptr(), (__half*)y.data_ptr(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor gelu(torch::Tensor x);"


def kernelbench_path():
    start = time.perf_counter()
    build_dir = tempfile.mkdtemp(prefix="kb-ext-")
    module = load_inline(name="kb_gelu", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["gelu"],
                         build_directory=build_dir, verbose=False)
    compiled = time.perf_counter()
    gen = torch.Generator(device="cpu").manual_seed(42)
    for _ in range(5):
        x = torch.randn(16384, 16384, generator=gen).to("cuda", torch.float16)
        ref = torch.nn.functional.gelu(x.float()).half()
        out = module.gelu(x)
        torch.cuda.synchronize()
        assert torch.allclose(out.float(), ref.float(), atol=1e-2, rtol=1e-2)
    verified = time.perf_counter()
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    times = []
    for i in range(103):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        flush.fill_(i)
        s.record()
        module.gelu(x)
        e.record()
        torch.cuda.synchronize()
        if i >= 3:
            times.append(s.elapsed_time(e))
    done = time.perf_counter()
    shutil.rmtree(build_dir, ignore_errors=True)
    return {"compile": compiled - start, "verify": verified - compiled, "time": done - verified, "total": done - start,
            "median_ms": sorted(times)[len(times) // 2]}


def kernelpro_path(kernelpro):
    env = dict(os.environ, KERNELPRO_CACHE_DIR=tempfile.mkdtemp(prefix="kp-cold-"))
    start = time.perf_counter()
    r = subprocess.run([kernelpro, "eval", os.path.join(ROOT, "tasks/gelu_f16"),
                        os.path.join(ROOT, "tasks/gelu_f16/candidates/fast.cu"), "--json", "-q"],
                       capture_output=True, text=True, env=env)
    total = time.perf_counter() - start
    import json
    try:
        report = json.loads(r.stdout)
    except Exception:
        print(r.stdout, r.stderr, file=sys.stderr)
        raise
    sec = report["seconds"]
    return {"compile": sec["compile"], "verify": sec["verify"], "time": sec["time"], "total": total,
            "median_ms": report["timing"]["candidate"]["median"] * 1e3, "status": report["status"]}


def main():
    kernelpro = sys.argv[1] if len(sys.argv) > 1 else shutil.which("kernelpro")
    ours = kernelpro_path(kernelpro)
    theirs = kernelbench_path()
    print("\n| path | compile s | verify s | time s | total wall s | kernel median ms |")
    print("|---|---|---|---|---|---|")
    print(f"| KernelBench-style (load_inline) | {theirs['compile']:.2f} | {theirs['verify']:.2f} | {theirs['time']:.2f} | {theirs['total']:.2f} | {theirs['median_ms']:.4f} |")
    print(f"| kernelpro eval ({ours['status']}) | {ours['compile']:.2f} | {ours['verify']:.2f} | {ours['time']:.2f} | {ours['total']:.2f} | {ours['median_ms']:.4f} |")
    print(f"\nwall time per candidate: {theirs['total'] / ours['total']:.1f}x less with kernelpro")


if __name__ == "__main__":
    main()
