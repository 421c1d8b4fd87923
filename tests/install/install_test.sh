#!/usr/bin/env bash
# An installed kernelpro works anywhere: `cmake --install` into a fresh prefix, then, from another
# folder and with the checkout and the build tree hidden (a private mount namespace lays an empty
# folder over each), `P/bin/kernelpro check` and `profile --collectors sass,ptxas` on an example
# task copied there, and `doctor` finding the helpers in the prefix. No GPU needed.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
scratch=$(mktemp -d /tmp/kp-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
for f in bin/kernelpro bin/kernelpro-worker lib/libkp_timeline.so include/kernelpro/abi.h share/kernelpro/prompts/coder.md; do
  [ -e "$prefix/$f" ] || { echo "FAIL: the install has no $f"; exit 1; }
done
mkdir -p "$scratch/work" "$scratch/cache"
cp -r "$source/tasks/transpose_f32" "$scratch/work/task"

# What runs with the checkout and the build tree out of sight.
cat > "$scratch/run.sh" <<'RUN'
set -uo pipefail
kp=$PREFIX/bin/kernelpro
cd "$WORK"
"$kp" check task task/candidates/fast.cu > check.out 2>&1; echo $? > check.rc
"$kp" profile task task/candidates/fast.cu --collectors sass,ptxas --json -q > profile.json 2> profile.err; echo $? > profile.rc
"$kp" doctor > doctor.out 2>&1; echo $? > doctor.rc
RUN
hide="mount -t tmpfs kp-hidden '$source'"
case "$build" in "$source"/*) ;; *) hide="$hide && mount -t tmpfs kp-hidden '$build'" ;; esac
export PREFIX=$prefix WORK=$scratch/work KERNELPRO_CACHE_DIR=$scratch/cache
cd "$scratch"
if unshare --user --map-root-user --mount true 2>/dev/null; then
  unshare --user --map-root-user --mount bash -c "$hide && [ ! -e '$source/CMakeLists.txt' ] && exec bash '$scratch/run.sh'" \
    || { echo "FAIL: could not hide the checkout"; exit 1; }
else
  # Without user namespaces the checkout stays visible; the binaries carry no path to it anyway.
  echo "note: no user namespaces here, so the checkout could not be hidden"
  bash "$scratch/run.sh"
fi

work=$scratch/work
status=0
fail() { echo "FAIL: $*"; status=1; }
[ "$(cat "$work/check.rc")" = 0 ] || fail "check exited $(cat "$work/check.rc"): $(cat "$work/check.out")"
grep -q "^build .*ok" "$work/check.out" || fail "check did not build the candidate: $(cat "$work/check.out")"
grep -q "^guard .*passed" "$work/check.out" || fail "check did not pass the guard: $(cat "$work/check.out")"
[ "$(cat "$work/profile.rc")" = 0 ] || fail "profile exited $(cat "$work/profile.rc"): $(cat "$work/profile.err")"
python3 - "$work/profile.json" "$source" <<'PY' || status=1
import json, sys
report, source = json.load(open(sys.argv[1])), sys.argv[2]
kernels = report.get("kernels", [])
problems = []
if not kernels or not kernels[0].get("findings"):
    problems.append("no findings (SASS and ptxas give some on this kernel)")
if "sass" not in report.get("cost", {}).get("collector_seconds", {}):
    problems.append("the SASS collector did not run")
if source in json.dumps(report):
    problems.append("the report names the checkout")
for p in problems:
    print("FAIL: profile:", p, "\n", json.dumps(report)[:2000])
sys.exit(1 if problems else 0)
PY
for helper in "$prefix/bin/kernelpro-ceilings" "$prefix/lib/libkp_timeline.so" "$prefix/lib/libkp_counters.so"; do
  [ -e "$helper" ] || continue
  grep -qF "$helper" "$work/doctor.out" || fail "doctor did not find $helper: $(cat "$work/doctor.out")"
done
[ $status -eq 0 ] && echo "ok: the install in $prefix checks and profiles from $work with the checkout hidden"
exit $status
