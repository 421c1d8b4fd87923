#!/usr/bin/env python3
"""KernelBench's own harness, driven for scripts/kernelbench-check (GPU machine):

  deps      PYTHONPATH entries that make KernelBench's harness importable here: wheels from
            $KB_WHEELS (numpy, pydantic) for what Python lacks, printed one per line
  precompile KB_ROOT OUT.json MODEL_NEW.py...   build each ModelNew's extension (load_inline) in
            parallel processes, into a build folder per file, as KernelBench's build_compile_cache
  eval      KB_ROOT OUT.json PRECISION PROBLEM.py=MODEL_NEW.py...   eval_kernel_against_ref on each
  timing    KB_ROOT OUT.json PROBLEM.py...   eager and torch.compile times with KernelBench's
            cuda_event timing (its L2 flush, warm-up and trial loop), under the same TF32 policy as
            kernelpro's reference (off)
  timing-protocol KB_ROOT OUT.json PROBLEM.py...   eager times under variants of that trial loop,
            to explain where kernelpro's protocol differs: "kb" (KernelBench's own function),
            "sync_after_flush" (the GPU idle when the call starts: the host's launch work is timed,
            as in kernelpro's protocol), "rotate3" (that, with the inputs rotating through 3
            copies, as kernelpro's cold samples do) and "rotate3_redraw" (that, with new values
            written into the inputs before each trial)

KernelBench's package __init__ imports its LLM clients (openai, litellm, dotenv, tqdm); where those
are missing they are replaced by empty modules: evaluation never calls them. numpy and pydantic,
where neither this Python nor $KB_WHEELS has them, get stand-ins too (after torch is imported, so
torch never sees them): KernelBench's correctness check imports numpy without using it and keeps
its verdict in a pydantic model with defaults, which the stand-in BaseModel reproduces; `deps`
says so. One failing problem never stops the others: its entry says why.
"""
import copy
import json
import os
import statistics
import sys
import time
import traceback
import types
import zipfile


def _empty_module(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module


class StandInBaseModel:
    """pydantic.BaseModel as KernelBench's KernelExecResult uses it: annotated class attributes are
    the defaults (copied per instance), keyword arguments set fields."""

    def __init__(self, **fields):
        for klass in reversed(type(self).__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if name in klass.__dict__:
                    setattr(self, name, copy.deepcopy(klass.__dict__[name]))
        for name, value in fields.items():
            setattr(self, name, value)

    def model_dump(self):
        return dict(vars(self))

    dict = model_dump


def import_kernelbench(kb_root):
    """kernelbench.eval and kernelbench.timing from the checkout, without its LLM dependencies."""
    sys.path.insert(0, os.path.join(kb_root, "src"))
    import torch  # noqa: F401  (before any stand-in below, so torch finds numpy as it really is)
    for name, attributes in [("numpy", {}), ("pydantic", {"BaseModel": StandInBaseModel})]:
        try:
            __import__(name)
        except ImportError:
            _empty_module(name, **attributes)
    for name, attributes in [("dotenv", {"load_dotenv": lambda *a, **k: None}),
                             ("tqdm", {"tqdm": lambda it=None, *a, **k: it}),
                             ("openai", {"OpenAI": object}), ("litellm", {"completion": None}),
                             ("requests", {})]:
        try:
            __import__(name)
        except Exception:
            _empty_module(name, **attributes)
    from kernelbench import eval as kb_eval, timing as kb_timing  # noqa: E402
    return kb_eval, kb_timing


def deps(wheel_dir, target):
    """Prints TARGET (for PYTHONPATH) when the wheels of WHEEL_DIR supply what this Python lacks;
    prints nothing when nothing is missing or when the stand-ins will serve (the reason on stderr)."""
    missing = []
    for module in ("numpy", "pydantic"):
        try:
            __import__(module)
        except Exception:
            missing.append(module)
    if not missing:
        return 0
    stand_ins = (f"{' and '.join(missing)} missing: KernelBench's harness runs with stand-ins "
                 "(its correctness check does not use numpy; its result model is reproduced)")
    if not wheel_dir or not os.path.isdir(wheel_dir):
        print(f"{stand_ins}; no KB_WHEELS folder", file=sys.stderr)
        return 0
    import subprocess
    os.makedirs(target, exist_ok=True)
    for wheel in sorted(os.listdir(wheel_dir)):
        if wheel.endswith(".whl"):
            with zipfile.ZipFile(os.path.join(wheel_dir, wheel)) as z:
                z.extractall(target)  # a wheel is a zip of site-packages contents
    check = subprocess.run([sys.executable, "-c", "import " + ", ".join(missing)], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": target})
    if check.returncode != 0:  # wheels for another Python, say
        last = (check.stderr.strip().splitlines() or ["?"])[-1]
        print(f"{stand_ins}; the wheels of {wheel_dir} do not import here: {last}", file=sys.stderr)
        return 0
    print(target)
    return 0


def set_tf32_off():
    import torch
    try:
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
    except (AttributeError, RuntimeError):
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def _precompile_one(args):
    kb_root, model_new = args
    kb_eval, _ = import_kernelbench(kb_root)
    build_dir = model_new + ".build"
    start = time.time()
    with open(model_new) as f:
        source = f.read()
    ok, _, error = kb_eval.build_compile_cache(source, verbose=False, build_dir=build_dir)
    return {"model_new": model_new, "built": bool(ok), "error": str(error or "")[:500], "seconds": time.time() - start}


def precompile(kb_root, out, files):
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(min(len(files), os.cpu_count() or 4)) as pool:
        results = pool.map(_precompile_one, [(kb_root, f) for f in files])
    json.dump(results, open(out, "w"), indent=2)
    return 0


def evaluate(kb_root, out, precision, pairs, trials=1):
    """KernelBench's default of one correctness trial: it draws each trial's inputs on the CPU
    (seconds for a level-1 problem)."""
    import torch
    kb_eval, _ = import_kernelbench(kb_root)
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[precision]
    results = []
    for pair in pairs:
        problem, model_new = pair.split("=", 1)
        entry = {"problem": problem, "model_new": model_new}
        start = time.time()
        try:
            result = kb_eval.eval_kernel_against_ref(open(problem).read(), open(model_new).read(), num_correct_trials=trials,
                                                     measure_performance=False, build_dir=model_new + ".build",
                                                     precision=dtype, verbose=False)
            if result is None:
                entry["error"] = "KernelBench returned no result (a build lock: retry)"
            else:
                entry.update({"compiled": result.compiled, "correct": result.correctness,
                              "metadata": {k: str(v)[:300] for k, v in result.metadata.items()}})
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"[:500]
            traceback.print_exc()
        entry["seconds"] = time.time() - start
        results.append(entry)
        print(json.dumps(entry), flush=True)
        torch.cuda.empty_cache()
    json.dump(results, open(out, "w"), indent=2)
    return 0


def _inputs(kb_eval, source):
    """The inputs as KernelBench's measure_ref_program_time draws them (on the CPU, seed 42)."""
    import torch
    _, _, get_inputs = kb_eval.load_original_model_and_inputs(source, {})
    kb_eval.set_seed(42)
    return [x.to(device="cuda:0", dtype=torch.float32) if isinstance(x, torch.Tensor) else x for x in get_inputs()]


def _model(kb_eval, source):
    """The problem's Model on the GPU, as KernelBench's measure_ref_program_time builds it (seed 42,
    fp32); call under torch.no_grad()."""
    import torch
    Model, get_init_inputs, _ = kb_eval.load_original_model_and_inputs(source, {})
    kb_eval.set_seed(42)
    init = [x.to(device="cuda:0", dtype=torch.float32) if isinstance(x, torch.Tensor) else x for x in get_init_inputs()]
    return Model(*init).to(device="cuda:0", dtype=torch.float32)


def _summary(times):
    return {"median_ms": statistics.median(times), "mean_ms": statistics.mean(times), "trials": len(times)}


def _time_model(kb_eval, kb_timing, source, inputs, compiled, trials):
    """KernelBench's measure_ref_program_time, keeping the raw trial times (it reports a mean)."""
    import torch
    with torch.no_grad():
        model = _model(kb_eval, source)
        if compiled:
            torch._dynamo.reset()
            model = torch.compile(model)
        times = kb_timing.time_execution_with_cuda_event(model, inputs, num_warmup=5, num_trials=trials, discard_first=1,
                                                         verbose=False, device=torch.device("cuda:0"))
    del model
    torch.cuda.empty_cache()
    return _summary(times)


def _each_problem(kb_root, out, problems, measure):
    """measure(kb_eval, kb_timing, source, inputs, entry) on every problem, with one input draw
    each (TF32 off, as kernelpro's reference); one line per problem as it ends, all in OUT.json."""
    kb_eval, kb_timing = import_kernelbench(kb_root)
    set_tf32_off()
    results = []
    for problem in problems:
        entry = {"problem": problem}
        source = open(problem).read()
        try:
            inputs = _inputs(kb_eval, source)
        except Exception as e:
            entry["error"] = f"get_inputs: {type(e).__name__}: {e}"[:300]
        else:
            measure(kb_eval, kb_timing, source, inputs, entry)
            del inputs
        results.append(entry)
        print(json.dumps(entry), flush=True)
    json.dump(results, open(out, "w"), indent=2)
    return 0


def timing(kb_root, out, problems, trials=50):
    def eager_and_compile(kb_eval, kb_timing, source, inputs, entry):  # one draw serves both modes
        for mode in ("eager", "compile"):
            start = time.time()
            try:
                entry[mode] = _time_model(kb_eval, kb_timing, source, inputs, mode == "compile", trials)
            except Exception as e:
                entry[mode] = {"error": f"{type(e).__name__}: {e}"[:300]}
            entry[mode]["seconds"] = time.time() - start
    return _each_problem(kb_root, out, problems, eager_and_compile)


def _trial_loop(kb_timing, model, input_sets, trials, sync_after_flush, redraw=False):
    """KernelBench's cuda_event trial (L2 flush, events around one call), optionally idling the GPU
    before the start event and rotating through several input sets."""
    import torch
    for _ in range(5):
        model(*input_sets[0])
    torch.cuda.synchronize()
    times = []
    for trial in range(trials + 1):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if redraw:  # new values written into the inputs just before, as kernelpro's even samples do
            for x in input_sets[trial % len(input_sets)]:
                if isinstance(x, torch.Tensor) and x.is_floating_point():
                    x.uniform_()
        kb_timing.clear_l2_cache(device="cuda:0")
        if sync_after_flush:
            torch.cuda.synchronize()
        start.record()
        model(*input_sets[trial % len(input_sets)])
        end.record()
        torch.cuda.synchronize()
        if trial > 0:  # the first trial is discarded, as KernelBench does
            times.append(start.elapsed_time(end))
    return _summary(times)


def timing_protocol(kb_root, out, problems, trials=50):
    def variants(kb_eval, kb_timing, source, inputs, entry):
        import torch
        try:
            entry["kb"] = _time_model(kb_eval, kb_timing, source, inputs, False, trials)
            with torch.no_grad():
                model = _model(kb_eval, source)
                entry["sync_after_flush"] = _trial_loop(kb_timing, model, [inputs], trials, True)
                copies = [inputs] + [[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs] for _ in range(2)]
                entry["rotate3"] = _trial_loop(kb_timing, model, copies, trials, True)
                entry["rotate3_redraw"] = _trial_loop(kb_timing, model, copies, trials, True, redraw=True)
            del model, copies
            torch.cuda.empty_cache()
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"[:300]
    return _each_problem(kb_root, out, problems, variants)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    command, rest = argv[1], argv[2:]
    if command == "deps":
        return deps(os.environ.get("KB_WHEELS", ""), rest[0])
    if command == "precompile":
        return precompile(rest[0], rest[1], rest[2:])
    if command == "eval":
        return evaluate(rest[0], rest[1], rest[2], rest[3:], int(os.environ.get("KB_EVAL_TRIALS", "1")))
    if command == "timing":
        return timing(rest[0], rest[1], rest[2:], int(os.environ.get("KB_TIMING_TRIALS", "50")))
    if command == "timing-protocol":
        return timing_protocol(rest[0], rest[1], rest[2:], int(os.environ.get("KB_TIMING_TRIALS", "50")))
    print(f"unknown command {command}\n{__doc__}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
