#!/usr/bin/env python3
"""The end of scripts/kernelbench-check: tables from its reports and the verdict.

  kernelbench_summary.py WORK OUT FULL

Reads OUT/selection.tsv (level, id, task, kernel per selected problem), OUT/import_*.json,
OUT/results.json (kernelpro bench), OUT/kb_eval.json (KernelBench's eval_kernel_against_ref),
OUT/kb_timing.json (KB_FULL only), OUT/*.rc (each step's exit code). Prints, last, one row per
selected problem (imported?, correct?, KernelBench's verdict, eager / compile / kernel times,
speedups) and one verdict line; exits 1 when any problem or step failed, 0 when all passed.
"""
import glob
import json
import os
import sys


def load(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return default


def ms(seconds):
    return f"{seconds * 1e3:.4g}" if isinstance(seconds, (int, float)) else "-"


def times(speedup):
    return f"{speedup:.2f}x" if isinstance(speedup, (int, float)) else "-"


def import_entries(out):
    """{(level, id): entry} over every import report (fp32 ones: the bf16 import is counted only)."""
    entries = {}
    for path in glob.glob(f"{out}/import_l[0-9].json"):
        level = int(os.path.basename(path)[len("import_l"):-len(".json")])
        for p in load(path, {}).get("problems", []):
            head = os.path.basename(p.get("file", "")).split("_", 1)[0]
            if head.isdigit():
                entries[(level, int(head))] = p
    return entries


def print_import_tables(out):
    print("\n| import | problems | converted | unconvertible | errors | degenerate | not checked |\n|---|---|---|---|---|---|---|")
    for name in ("l1", "l2", "l3", "l1_bf16"):
        c = load(f"{out}/import_{name}.json", {}).get("counts", {})
        print(f"| {name} | {c.get('problems', '-')} | {c.get('converted', '-')} | {c.get('unconvertible', '-')} | "
              f"{c.get('errors', '-')} | {c.get('degenerate', '-')} | {c.get('constant_unchecked', '-')} |")


def print_timing_table(out, bench):
    """Our eager/compile medians (the bench's baselines) against KernelBench's cuda_event timing."""
    if not os.path.exists(f"{out}/kb_timing.json"):
        return
    kb_time = {os.path.basename(os.path.dirname(e["problem"])): e for e in load(f"{out}/kb_timing.json", [])}
    print("\n| problem | eager ours ms | eager KB ms | ratio | compile ours ms | compile KB ms | ratio |\n|---|---|---|---|---|---|---|")
    for task, t in sorted(kb_time.items()):
        b = bench.get(task, {})
        ek, ck = t.get("eager", {}).get("median_ms"), t.get("compile", {}).get("median_ms")
        eo, co = b.get("eager_seconds"), b.get("compile_seconds")
        ratio = lambda a, k: f"{a * 1e3 / k:.2f}" if isinstance(a, (int, float)) and isinstance(k, (int, float)) and k > 0 else "-"
        print(f"| {task} | {ms(eo)} | {ek if ek is not None else '-'} | {ratio(eo, ek)} | {ms(co)} | "
              f"{ck if ck is not None else '-'} | {ratio(co, ck)} |")


def print_evaluation_cost(work):
    reports = sorted(glob.glob(f"{work}/bench/*/best.json"))
    if not reports:
        return
    r = load(reports[0], {})
    s = r.get("seconds", {})
    p = s.get("worker_phases", {})
    print(f"\none evaluation of {r.get('task')}: compile {s.get('compile', 0):.2f} s, worker {p.get('end', 0):.2f} s "
          f"(Python and PyTorch up at {p.get('hello', 0):.2f} s; reference {p.get('reference', 0):.2f}-{p.get('load', 0):.2f} s; "
          f"correctness from {p.get('correctness', 0):.2f} s; timing from {p.get('warmup', 0):.2f} s), total {s.get('total', 0):.2f} s")


def kb_verdict(entry, kb_skipped):
    """(cell, failure or None) for KernelBench's check of one problem."""
    if kb_skipped:
        return "skipped", None
    if entry is None:
        return "not run", "KernelBench's check did not run"
    if entry.get("correct"):
        return "correct", None
    if entry.get("error"):
        return "error", "KernelBench's check: " + entry["error"][:200]
    if entry.get("compiled"):
        return "wrong", "KernelBench's check: compiled but incorrect " + str(entry.get("metadata", {}))[:200]
    return "build failed", "KernelBench's check: did not compile " + str(entry.get("metadata", {}))[:200]


def main(work, out, full):
    failures = []
    for rc_file in sorted(glob.glob(f"{out}/*.rc")):
        name = os.path.basename(rc_file)[:-3]
        rc = open(rc_file).read().strip()
        if rc != "0":
            failures.append(f"step {name} exited {rc}" + (" (its time limit)" if rc in ("124", "137") else "") +
                            f": see {out}/{name}.log")
    bench = {p["name"]: p for p in load(f"{out}/results.json", {}).get("problems", [])}
    kb_eval = {os.path.basename(e["model_new"])[:-3]: e for e in load(f"{out}/kb_eval.json", [])}
    kb_skipped = os.path.exists(f"{out}/kb_skipped.txt")
    imports = import_entries(out)
    if full == "1":
        print_import_tables(out)
    print_timing_table(out, bench)
    print_evaluation_cost(work)

    rows = []
    selection = [line.rstrip("\n").split("\t") for line in open(f"{out}/selection.tsv") if line.strip()]
    for level, pid, task, kernel in selection:
        label = task or f"level {level} problem {pid}"
        entry = imports.get((int(level), int(pid)))
        if not task:
            why = (entry or {}).get("reason") or (entry or {}).get("status") or "no import report entry (see import_l*.log)"
            failures.append(f"{label}: not imported: {why}")
            rows.append((label, "no", "-", "-", None, None, None, None, None))
            continue
        if not kernel:
            failures.append(f"{label}: no kernel for it in examples/kernelbench/problems.tsv")
            rows.append((label, "yes", "no kernel", "-", None, None, None, None, None))
            continue
        b = bench.get(task)
        if b is None:
            ours = "not run"
            failures.append(f"{label}: not in the bench's results.json")
        else:
            ours = "correct" if b.get("correct") else (b.get("status") or "failed")
            if b.get("degenerate"):
                ours += " (degenerate)"
            if not b.get("correct"):
                failures.append(f"{label}: kernelpro bench: {b.get('status')}: {b.get('reason', '')[:200]}")
            missing = [k for k in ("eager_seconds", "compile_seconds", "kernel_seconds") if b.get(k) is None]
            if b.get("correct") and missing:
                failures.append(f"{label}: correct, but the bench reported no {', '.join(missing)}")
        kb_cell, kb_failure = kb_verdict(kb_eval.get(task), kb_skipped)
        if kb_failure:
            failures.append(f"{label}: {kb_failure}")
        b = b or {}
        rows.append((label, "yes", ours, kb_cell, b.get("eager_seconds"), b.get("compile_seconds"), b.get("kernel_seconds"),
                     b.get("speedup_vs_eager"), b.get("speedup_vs_compile")))

    print("\n| problem | imported | correct (ours) | KernelBench eval | eager ms | compile ms | kernel ms | vs eager | vs compile |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, imported, ours, kb, eager, compiled, kernel, x_eager, x_compile in rows:
        print(f"| {label} | {imported} | {ours} | {kb} | {ms(eager)} | {ms(compiled)} | {ms(kernel)} | {times(x_eager)} | {times(x_compile)} |")
    if kb_skipped:
        print(f"\nKernelBench's own check was skipped: {open(f'{out}/kb_skipped.txt').read().strip()[:300]}")
    if os.path.exists(f"{out}/kb_note.txt"):
        print(f"\nKernelBench's harness: {open(f'{out}/kb_note.txt').read().strip()[:300]}")
    if not rows:
        failures.append("no problems selected (KB_PROBLEMS)")
    if failures:
        print(f"\nKERNELBENCH CHECK FAILED ({len(failures)}):")
        for f in failures:
            print(f"  - {f}")
        return 1
    print(f"\nKERNELBENCH CHECK PASSED: {len(rows)}/{len(rows)} problems imported and correct"
          + ("" if kb_skipped else ", and passed by KernelBench's eval_kernel_against_ref"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "0"))
