#!/usr/bin/env python3
"""What CUPTI PC sampling's settings cost in a profile, against `ncu --set full` on the same kernels.

    python3 bench/pc_sampling_cost.py [--settings "100:512,default,5:512"] [--repeat N] TASK_DIR CANDIDATE.cu [...]

Each setting is SLEEP_MS:BUFFER_MB, passed to the worker as KP_PC_SAMPLING_SLEEP_MS and
KP_PC_SAMPLING_BUFFER_MB ("default": neither set, the worker's own choice: 1 ms, 64 MB). For each candidate and
setting, `kernelpro profile --json --no-cache --keep-counters` (best of --repeat runs): the report's
seconds, the worker's phases (set-up, passes, the sampled call and its parts) and the samples kept or
dropped; then `ncu --set full` once on the profile's worker request. Needs kernelpro,
kernelpro-worker and ncu (KERNELPRO_NCU) on PATH; prints a table last.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_table import print_table  # noqa: E402

KEEP = ""

def profile(kp, task, candidate, setting, workdir):
    env = dict(os.environ)
    env.pop("KP_PC_SAMPLING_SLEEP_MS", None)
    env.pop("KP_PC_SAMPLING_BUFFER_MB", None)
    if setting != "default":
        sleep_ms, buffer_mb = setting.split(":")
        env["KP_PC_SAMPLING_SLEEP_MS"] = sleep_ms
        env["KP_PC_SAMPLING_BUFFER_MB"] = buffer_mb
    counters = os.path.join(workdir, "counters.json")
    request = os.path.join(workdir, "request.json")
    start = time.monotonic()
    r = subprocess.run([kp, "profile", task, candidate, "--json", "-q", "--no-cache", "--keep-counters", counters,
                        "--keep-request", request], capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    if r.returncode != 0:
        raise RuntimeError(f"kernelpro profile exited {r.returncode}: {r.stderr.strip()[-300:]}")
    report = json.loads(r.stdout)
    reply = json.load(open(counters))
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        label = os.path.basename(candidate).removesuffix(".cu") + "." + setting.replace(":", "-")
        shutil.copy(counters, os.path.join(KEEP, label + ".counters.json"))
    seconds = reply.get("seconds", {})
    pcs = reply.get("pc_sampling", {})
    top = (report.get("kernels") or [{}])[0].get("findings") or [{}]
    return {
        "wall": wall,
        "report": report.get("cost", {}).get("seconds", wall),
        "setup": seconds.get("setup", 0.0),
        "passes": seconds.get("passes", 0.0),
        "pc_sampling": seconds.get("pc_sampling", 0.0),
        "pc_call": pcs.get("seconds", {}).get("call", 0.0),
        "pc_stop": pcs.get("seconds", {}).get("stop", 0.0),
        "samples": pcs.get("total_samples", 0),
        "dropped": pcs.get("dropped_samples", 0),
        "top": top[0].get("tool", "-"),
        "request": request,
        "process": seconds.get("process", 0.0),
        "prepare": seconds.get("prepare", 0.0),
        "setup_parts": seconds.get("setup_parts", {}),
        "pass_parts": seconds.get("pass_parts", {}),
        "pc_parts": pcs.get("seconds", {}),
    }


def full_set_seconds(ncu, worker, request):
    start = time.monotonic()
    r = subprocess.run([ncu, "--set", "full", "--clock-control", "none", "--profile-from-start", "off", "-c", "16", "--", "bash", "-c",
                        f"exec '{worker}' --channel-fd 3 3>/dev/null < '{request}'"], capture_output=True, text=True)
    return time.monotonic() - start if r.returncode == 0 else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="100:512 default 1:16 1:32")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep", default="", help="copy each best run's counters reply (with its phases) into this folder")
    parser.add_argument("pairs", nargs="+", help="TASK_DIR CANDIDATE.cu ...")
    args = parser.parse_args()
    global KEEP
    KEEP = args.keep
    if len(args.pairs) % 2:
        parser.error("give TASK_DIR CANDIDATE.cu pairs")
    kp = shutil.which("kernelpro") or "build/bin/kernelpro"
    worker = os.environ.get("KERNELPRO_WORKER") or shutil.which("kernelpro-worker")
    ncu = os.environ.get("KERNELPRO_NCU") or shutil.which("ncu")
    rows, parts = [], []
    for task, candidate in zip(args.pairs[::2], args.pairs[1::2]):
        name = os.path.basename(candidate).removesuffix(".cu")
        request = None
        for setting in args.settings.replace(",", " ").split():
            with tempfile.TemporaryDirectory() as workdir:
                try:
                    runs = [profile(kp, task, candidate, setting, workdir) for _ in range(args.repeat)]
                except (RuntimeError, OSError, ValueError) as e:
                    rows.append((name, setting, f"error: {e}") + ("-",) * 9)
                    continue
                best = min(runs, key=lambda r: r["report"])
                if request is None:
                    request = os.path.join(os.path.dirname(workdir), name + ".request.json")
                    shutil.copy(best["request"], request)
            rows.append((name, setting, f"{best['report']:.2f}", f"{best['wall']:.2f}", f"{best['setup']:.2f}", f"{best['passes']:.2f}",
                         f"{best['pc_sampling']:.3f}", f"{best['pc_call']:.3f}", f"{best['pc_stop']:.3f}",
                         f"{best['samples']}/{best['dropped']}", best["top"]))
            print("row: | " + " | ".join(rows[-1]) + " |", flush=True)
            fmt = lambda d: " ".join(f"{k} {v:.3f}" for k, v in d.items() if isinstance(v, (int, float)))
            parts.append((name, setting, f"{best['process']:.3f}", f"{best['prepare']:.3f}", fmt(best["setup_parts"]),
                          fmt(best["pass_parts"]), fmt(best["pc_parts"])))
        full = full_set_seconds(ncu, worker, request) if (ncu and worker and request) else float("nan")
        rows.append((name, "ncu --set full", f"{full:.2f}") + ("",) * 8)
        print("row: | " + " | ".join(rows[-1]) + " |", flush=True)
        if request:
            os.unlink(request)
    print_table(["kernel", "setting", "worker start s", "prepare s", "CUPTI set-up parts s", "pass parts s (summed)", "PC sampling parts s"],
                parts)
    print_table(["kernel", "setting (sleep ms:buffer MB)", "profile s", "wall s", "worker set-up s", "passes s", "pc sampling s",
                 "sampled call s", "stop s", "samples/dropped", "top finding"], rows)


if __name__ == "__main__":
    sys.exit(main())
