#!/usr/bin/env python3
"""What a live profile with a profiling tree costs, against what the tree's cost model charged it.

    python3 bench/tree_profile_cost.py [--trees "none,roofline,full,autoprofiler/trees/h200-default.toml"] [--repeat N]
                                       [--budget-passes P] TASK_DIR CANDIDATE.cu [...]

For each candidate and tree (and "default": the profile without a tree), `kernelpro profile --tree T
--json --no-cache` (best of --repeat runs by the report's seconds): the profile's own seconds and
wall time, the replay passes counted, the counter collections and worker starts, and the worker's
phases; then, per kernel, the leaf the walk took and the seconds and passes the cost model
(autoprofiler/costs/h200.toml) charged for it. Needs kernelpro and its worker on PATH and a GPU;
prints a table last.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_table import print_table  # noqa: E402


def profile(kp, task, candidate, tree, budget_passes):
    command = [kp, "profile", task, candidate, "--json", "-q", "--no-cache"]
    if tree != "default":
        command += ["--tree", tree] + (["--budget-passes", str(budget_passes)] if budget_passes else [])
    start = time.monotonic()
    r = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {r.stderr.strip()[-300:]}")
    report = json.loads(r.stdout)
    cost = report.get("cost", {})
    kernels = report.get("kernels") or [{}]
    walks = [k.get("tree") for k in kernels if k.get("tree")]
    # The main kernel's walk (the report lists kernels by their time in the call, longest first).
    walk = walks[0] if walks else {}
    top = (kernels[0].get("findings") or [{}])[0].get("tool", "-")
    if walk:
        shown = walk.get("findings") or [{}]
        top = shown[0].get("tool", "-") if shown else "-"
    worker = cost.get("worker_seconds", {})
    return {
        "seconds": cost.get("seconds", wall),
        "wall": wall,
        "passes": cost.get("replay_passes") or 0,
        "collections": cost.get("cupti_runs", 0),
        "starts": cost.get("worker_starts", 0),
        "process": worker.get("process", 0.0),
        "setup": worker.get("setup", 0.0),
        "passes_s": worker.get("passes", 0.0),
        "sampling": worker.get("pc_sampling", 0.0),
        "leaf": walk.get("leaf", "-"),
        "model_s": walk.get("seconds"),
        "model_p": walk.get("passes"),
        "top": top,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="default,none,roofline,full,autoprofiler/trees/h200-default.toml")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--budget-passes", type=int, default=0, help="the trees' pass budget (profile --budget-passes; default: none)")
    parser.add_argument("pairs", nargs="+", help="TASK_DIR CANDIDATE.cu ...")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give TASK_DIR CANDIDATE.cu pairs")
    kp = shutil.which("kernelpro") or "build/bin/kernelpro"
    rows = []
    for task, candidate in zip(args.pairs[::2], args.pairs[1::2]):
        name = os.path.basename(candidate).removesuffix(".cu")
        if name in ("fast", "tuned", "reference", "naive"):
            name = os.path.basename(os.path.normpath(task)) + "/" + name
        for tree in args.trees.replace(",", " ").split():
            try:
                best = min((profile(kp, task, candidate, tree, args.budget_passes) for _ in range(args.repeat)), key=lambda r: r["seconds"])
            except (RuntimeError, OSError, ValueError) as e:
                rows.append((name, os.path.basename(tree), f"error: {e}") + ("-",) * 11)
                print("row: | " + " | ".join(rows[-1]) + " |", flush=True)
                continue
            model = "-" if best["model_s"] is None else f"{best['model_s']:.2f} s / {best['model_p']}"
            rows.append((name, os.path.basename(tree), f"{best['seconds']:.2f}", f"{best['wall']:.2f}", str(best["passes"]),
                         f"{best['collections']}/{best['starts']}", f"{best['process']:.2f}", f"{best['setup']:.2f}",
                         f"{best['passes_s']:.2f}", f"{best['sampling']:.2f}", best["leaf"], model, best["top"]))
            print("row: | " + " | ".join(rows[-1]) + " |", flush=True)
    print_table(["kernel", "tree", "profile s", "wall s", "passes", "collections/worker starts", "process s", "CUPTI set-up s", "passes s",
                 "PC sampling s", "leaf", "model: s / passes", "top finding shown"], rows)


if __name__ == "__main__":
    sys.exit(main())
