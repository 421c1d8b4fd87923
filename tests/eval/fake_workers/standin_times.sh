#!/bin/sh
# The test stand-in for a GPU (KERNELPRO_WORKER=this file): no GPU, no candidate code run. It
# answers every evaluation as correct, with fake but deterministic times derived from the code of
# the candidate and of the reference (the build cache's copy next to the library, comment lines
# left out: best.cu's header names its run) and their -D values, so a search and its results
# table are the same on every run; for CI's `bench --slurm` and `bench merge` tests, where there
# is no GPU. The candidates were still built by real nvcc and passed the static guard before
# kernelpro starts this.
# KERNELPRO_STANDIN_SLEEP=S: wait S seconds before answering (a shard to kill mid-run).
request=$(cat)
field() { printf '%s' "$request" | sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p'; }
nonce=$(field nonce)
# 0.1 to 0.2 ms for candidates, 0.2 to 0.4 ms for references: 6 hex digits of the code's hash.
seconds() {
  entry=$(dirname "$1")
  key=$( { grep -v '^[[:space:]]*//' "$entry/candidate.cu" 2>/dev/null; grep -o -- '-D[A-Za-z_][A-Za-z0-9_]*=[^ "\\]*' "$entry/build.json" 2>/dev/null | sort; } \
        | sha256sum | cut -c1-6)
  awk -v k="$(printf '%d' "0x$key")" -v base="$2" 'BEGIN { printf "%.9g", base * (1 + k / 16777216) }'
}
candidate=$(seconds "$(field candidate_library)" 0.0001)
reference=$(seconds "$(field reference_library)" 0.0002)
speedup=$(awk -v c="$candidate" -v r="$reference" 'BEGIN { printf "%.9g", r / c }')
echo '{"nonce":"'"$nonce"'","type":"hello","protocol":"kp-worker/2","device":{"name":"stand-in (no GPU)"}}' >&3
[ -n "$KERNELPRO_STANDIN_SLEEP" ] && sleep "$KERNELPRO_STANDIN_SLEEP"
echo '{"nonce":"'"$nonce"'","type":"progress","phase":"timing"}' >&3
echo '{"nonce":"'"$nonce"'","type":"result","correctness":{"passed":true},"timing":{"candidate":{"median":'"$candidate"',"samples":1},"baseline":{"median":'"$reference"',"samples":1},"speedup":'"$speedup"'}}' >&3
