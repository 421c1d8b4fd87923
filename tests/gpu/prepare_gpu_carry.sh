#!/bin/sh
# Run here (no GPU needed) after building: copies the GPU helpers and test binaries, without debug
# info, into build-gpu-carry/ (ignored by .gitignore's /build*/), in the layout the tests expect,
# plus kernelpro's own shared libraries that a CUDA image may lack. Carry that folder to the GPU
# machine and run tests/gpu/run_gpu_checks.sh there.
set -eu
build=${1:-build-gpu}
out=build-gpu-carry
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests/gpu" "$out/deps"
cp "$build/bin/kernelpro-ceilings" "$out/bin/"
cp "$build/lib/libkp_timeline.so" "$out/lib/"
cp "$build/tests/gpu/timeline_probe" "$build/tests/gpu/gpu_device_tests" "$build/tests/gpu/gpu_tests" "$out/tests/gpu/"
if [ -x "$build/bin/kernelpro" ]; then
  cp "$build/bin/kernelpro" "$out/bin/"
  for lib in $(ldd "$out/bin/kernelpro" | awk '/libfmt|libtoml/ {print $3}'); do cp -L "$lib" "$out/deps/"; done
fi
strip --strip-debug "$out"/bin/* "$out"/lib/* "$out"/tests/gpu/*
du -sh "$out"
