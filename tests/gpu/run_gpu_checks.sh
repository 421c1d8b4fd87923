#!/bin/bash
# Run on the GPU machine from the repository root, with build-gpu-carry/ carried (see
# prepare_gpu_carry.sh). Reads only; changes no GPU setting. Writes at most 8 files to $OUT.
set -u
carry=${1:-build-gpu-carry}
out=${OUT:-/tmp/kp-gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$carry/deps:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export KERNELPRO_CACHE_DIR="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv 2>&1 | tee "$out/nvidia_smi.txt"
"$carry/bin/kernelpro" doctor 2>&1 | tee "$out/doctor.txt"
"$carry/bin/kernelpro" doctor --json > "$out/doctor.json" 2>&1
# GPU-free tests plus the loaders, which run for real here.
"$carry/tests/gpu/gpu_tests" 2>&1 | tail -40 | tee "$out/gpu_tests.txt"
# gpu-labelled: a full ceilings run with range checks, and the timeline injection.
"$carry/tests/gpu/gpu_device_tests" 2>&1 | tee "$out/gpu_device_tests.txt"
# Second ceilings run through the CLI (fills the cache), then the cached JSON.
"$carry/bin/kernelpro" device --refresh 2>&1 | tee "$out/device.txt"
"$carry/bin/kernelpro" device --json > "$out/device.json" 2>&1
CUDA_INJECTION64_PATH="$PWD/$carry/lib/libkp_timeline.so" KP_TIMELINE_OUT="$out/timeline_probe.json" \
  "$carry/tests/gpu/timeline_probe"
status=$?
if [ -f "$out/timeline_probe.json" ]; then size=$(wc -c < "$out/timeline_probe.json"); else size=no; fi
echo "timeline_probe exit $status; $size bytes of trace"
grep -E "PASSED|FAILED|SKIPPED" "$out/gpu_device_tests.txt" "$out/gpu_tests.txt" | tail -12
