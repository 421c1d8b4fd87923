"""ncu's replay passes as it prints them: one "==PROF== Profiling ... - N passes" line per profiled
launch, in its human-readable mode only (not with --csv). Shared by scripts/ncu-rerun,
scripts/gpu-profile-check and bench/ncu_cost_probe.py."""
import re

_PASSES = re.compile(r"- (\d+) pass(?:es)?")


def passes_per_launch(ncu_output):
    """The pass count of each profiled launch, in order."""
    return [int(p) for p in _PASSES.findall(ncu_output)]
