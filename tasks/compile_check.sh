#!/usr/bin/env bash
# Compile-checks every task source (reference + candidates; tunables in every -D combination)
# the way kernelpro builds candidates, and lists any undefined dynamic symbol outside the
# allowed set (kernel launch plumbing, cudaGetLastError, cudaFuncSetAttribute, occupancy
# queries, C++ runtime; cuBLAS where the task allows it).
# Usage: tasks/compile_check.sh [FILE.cu ...]   (default: everything under tasks/)
set -u
cd "$(dirname "$0")/.."
NVCC=${NVCC:-nvcc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ALLOWED='^(__cuda[A-Za-z]*|cudaGetLastError|cudaFuncSetAttribute|cudaOccupancy[A-Za-z]*|__cxa_[a-z_]*|__gxx_personality_v0|_Unwind_Resume|_ITM_[A-Za-z]*|__gmon_start__|memcpy|memset)$'
fail=0
files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=(tasks/*/reference.cu tasks/*/candidates/*.cu); fi

combos() {  # prints one line of -D flags per combination of the file's kp:tune lines
    local f=$1
    local lines=()
    while IFS= read -r l; do lines+=("$l"); done < <(grep -o 'kp:tune .*' "$f" | sed 's/^kp:tune //' | tr ' ' '\n' | grep '=')
    local acc=("")
    for l in "${lines[@]}"; do
        local name=${l%%=*} vals=${l#*=} next=()
        IFS=',' read -ra vs <<< "$vals"
        for a in "${acc[@]}"; do for v in "${vs[@]}"; do next+=("$a -D$name=$v"); done; done
        acc=("${next[@]}")
    done
    [ ${#lines[@]} -gt 0 ] && echo ""   # the #ifndef defaults
    printf '%s\n' "${acc[@]}"
}

for f in "${files[@]}"; do
    dir=$(dirname "$f"); [ "$(basename "$dir")" = candidates ] && dir=$(dirname "$dir")
    libs=""; allowed=$ALLOWED
    if [ -f "$dir/task.toml" ] && grep -q '^libraries *=.*cublas' "$dir/task.toml"; then
        libs="-lcublas"; allowed="${ALLOWED%)\$}|cublas[A-Za-z0-9_]*)\$"
    fi
    while IFS= read -r defs; do
        so="$OUT/x.so"
        if ! $NVCC -shared -Xcompiler -fPIC -O3 -lineinfo -cudart shared \
             -gencode=arch=compute_90a,code=sm_90a -I include $defs -o "$so" "$f" $libs 2> "$OUT/err"; then
            echo "FAIL compile: $f $defs"; cat "$OUT/err"; fail=1; continue
        fi
        if grep -q -i 'warning' "$OUT/err"; then echo "WARN: $f $defs"; cat "$OUT/err"; fi
        bad=$(nm -D --undefined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | grep -Ev "$allowed" || true)
        if [ -n "$bad" ]; then echo "SYMBOLS $f $defs: $(echo $bad)"; fail=1; fi
        echo "ok $f $defs"
    done < <(combos "$f")
done
exit $fail
