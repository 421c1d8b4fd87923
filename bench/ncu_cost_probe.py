#!/usr/bin/env python3
"""What each piece of an ncu profile costs on this GPU: wall seconds and replay passes.

    python3 bench/ncu_cost_probe.py [--per-tool] [--per-metric] [--drop-groups] TASK_DIR CANDIDATE.cu [...more pairs]

For each candidate: `kernelpro profile --json` once (ours, end to end), then ncu on the same worker
profile_run request with: one free metric (ncu's fixed cost), the roofline (stage 1) metrics, the
metrics of every tool, the source page, and `--set full`. With --per-tool, each tool's own metrics
alone too (which tools make the passes); with --per-metric, only each hardware-counter metric alone; with --drop-groups, only
all metrics but one family at a time (which family makes the passes). Passes are read from ncu's "==PROF== ... - N passes" lines.
Needs kernelpro, kernelpro-worker and ncu (KERNELPRO_NCU) on PATH; prints a table last.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from ncu_passes import passes_per_launch  # noqa: E402



def run(argv, env=None):
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return time.monotonic() - start, proc.returncode, proc.stdout


def main():
    args = sys.argv[1:]
    per_tool = "--per-tool" in args
    per_metric = "--per-metric" in args
    drop_groups = "--drop-groups" in args
    args = [a for a in args if a not in ("--per-tool", "--per-metric", "--drop-groups")]
    if not args or len(args) % 2:
        print(__doc__)
        return 2
    kp = shutil.which("kernelpro")
    worker = os.environ.get("KERNELPRO_WORKER") or shutil.which("kernelpro-worker")
    ncu = os.environ.get("KERNELPRO_NCU") or shutil.which("ncu")
    if not (kp and worker and ncu):
        print(f"need kernelpro ({kp}), kernelpro-worker ({worker}) and ncu ({ncu})")
        return 3
    tools = json.loads(subprocess.run([kp, "profile", "--list-tools", "--json"], stdout=subprocess.PIPE, text=True, check=True).stdout)
    stage1 = tools["stage1_metrics"]
    every = sorted(set(stage1) | {m for t in tools["tools"] for m in t["metrics"]})
    scratch = tempfile.mkdtemp(prefix="kp-ncu-cost-")
    empty_sections = os.path.join(scratch, "no-sections")
    os.makedirs(empty_sections)
    rows = []
    for task, candidate in zip(args[0::2], args[1::2]):
        label = f"{os.path.basename(task.rstrip('/'))}/{os.path.basename(candidate)}"
        request = os.path.join(scratch, "request.json")
        seconds, rc, out = run([kp, "profile", task, candidate, "--json", "-q", "--keep-request", request])
        top = "-"
        passes_ours = "-"
        try:
            report = json.loads(out[out.index("{"):])
            k = (report.get("kernels") or [{}])[0]
            f = (k.get("findings") or [{}])[0]
            top = f"{f.get('tool', '-')} {100 * f.get('estimated_gain', 0):.0f}%" if f else "-"
            passes_ours = report.get("cost", {}).get("estimated_replay_passes", "-")
        except ValueError:
            top = f"exit {rc}"
        rows.append((label, "kernelpro profile (ours, end to end)", seconds, f"~{passes_ours}", top))
        target = ["--", "bash", "-c", f"exec '{worker}' --channel-fd 3 3>/dev/null < '{request}'"]
        seconds, rc, _ = run(["bash", "-c", f"exec '{worker}' --channel-fd 3 3>/dev/null < '{request}'"])
        rows.append((label, "worker alone (no ncu)", seconds, "0", f"rc {rc}"))
        base = [ncu, "--profile-from-start", "off", "--clock-control", "none", "--print-units", "base", "-c", "16"]

        # No --csv: ncu prints its "- N passes" lines only in its human-readable mode.
        def ncu_row(name, extra, csv=False):
            argv = base + (["--csv"] if csv else []) + extra + target
            seconds, rc, out = run(argv)
            if rc:
                print(f"{name}: exit {rc}: {out[-600:]}")
            passes = passes_per_launch(out)
            kernels = len(passes)
            rows.append((label, name, seconds, str(sum(passes)) + (f" ({kernels} kernels)" if kernels != 1 else ""),
                         f"rc {rc}" if rc else ""))
            return out

        if drop_groups:  # only: every metric but one family, to find which family costs passes
            ncu_row(f"ncu, every tool's metrics ({len(every)})", ["--metrics", ",".join(every)])
            families = ["sm__ops_path_tensor", "lts__", "l1tex__data", "l1tex__t_", "sm__pipe_", "sm__inst_executed_pipe",
                        "smsp__average_warp", "smsp__thread_inst", "smsp__warps", "dram__", "sm__cycles", "smsp__inst_executed",
                        "smsp__issue_active", "sm__warps_active"]
            for family in families:
                kept = [m for m in every if not m.startswith(family)]
                ncu_row(f"  without {family}* ({len(every) - len(kept)})", ["--metrics", ",".join(kept)])
            continue
        if per_metric:  # only: every hardware-counter metric alone (the SASS-patched ones share one pass)
            for m in every:
                if "sass_" not in m and not m.startswith(("launch__", "device__")):
                    ncu_row(f"  metric {m}", ["--metrics", m])
            continue
        ncu_row("ncu, one free metric (fixed cost)", ["--metrics", "launch__grid_size"])
        ncu_row("ncu, gpu__time_duration only", ["--metrics", "gpu__time_duration.sum"])
        ncu_row("ncu, stage 1 roofline metrics", ["--metrics", ",".join(stage1)])
        ncu_row("ncu, stage 1, no section files", ["--section-folder", empty_sections, "--metrics", ",".join(stage1)])
        ncu_row(f"ncu, every tool's metrics ({len(every)})", ["--metrics", ",".join(every)])
        ncu_row("  the same, --cache-control none", ["--cache-control", "none", "--metrics", ",".join(every)])
        ncu_row("  the same, --target-processes application-only", ["--target-processes", "application-only",
                                                                     "--metrics", ",".join(every)])
        sass_metrics = [m for m in every if "sass_" in m]
        ncu_row(f"  only its SASS-patched metrics ({len(sass_metrics)})", ["--metrics", ",".join(sass_metrics)])
        hw_metrics = [m for m in every if "sass_" not in m]
        ncu_row(f"  only its hardware-counter metrics ({len(hw_metrics)})", ["--metrics", ",".join(hw_metrics)])
        if per_tool:
            for t in tools["tools"]:
                if t["metrics"]:
                    ncu_row(f"  tool {t['name']} ({len(t['metrics'])})", ["--metrics", ",".join(t["metrics"])])
        report = os.path.join(scratch, "source")
        ncu_row("ncu, SourceCounters+WarpStateStats export", ["--section", "SourceCounters", "--section", "WarpStateStats",
                                                               "--import-source", "yes", "--export", report, "--force-overwrite"],
                csv=False)
        for page in ("raw", "source"):
            extra = ["--print-source", "sass"] if page == "source" else []
            seconds, rc, _ = run([ncu, "--import", report + ".ncu-rep", "--csv", "--print-units", "base", "--page", page] + extra)
            rows.append((label, f"ncu --import, page {page}", seconds, "0", f"rc {rc}" if rc else ""))
        ncu_row("ncu --set full", ["--set", "full"])
    shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(f"| {'candidate':<28} | {'what':<44} | {'seconds':>7} | {'passes':<16} | note")
    print(f"|{'-' * 30}|{'-' * 46}|{'-' * 9}|{'-' * 18}|------")
    for label, name, seconds, passes, note in rows:
        print(f"| {label:<28} | {name:<44} | {seconds:7.2f} | {passes:<16} | {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
