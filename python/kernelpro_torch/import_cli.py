"""`python3 -m kernelpro_torch.import_cli REQUEST.json RESULTS.jsonl`, run by `kernelpro import`.

REQUEST: {"precision": "fp32", "check_constant": "auto"|"on"|"off",
          "problems": [{"file": "19_ReLU.py", "out": "tasks/kb_l1_19_ReLU"}, ...]}
RESULTS: one JSON line per problem, appended as each one finishes (a crash of one problem's code
that takes the interpreter down loses only the problems after it, which kernelpro reports)."""
from __future__ import annotations

import json
import sys
import warnings


def _release_gpu_memory() -> None:
    """Other imports may run beside this one: give back what the constant check cached."""
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python3 -m kernelpro_torch.import_cli REQUEST.json RESULTS.jsonl", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore")  # problems' own deprecation warnings are not ours to show
    with open(argv[1], encoding="utf-8") as f:
        request = json.load(f)
    from .importer import import_problem

    with open(argv[2], "a", encoding="utf-8") as results:
        for problem in request["problems"]:
            try:
                facts = import_problem(problem["file"], problem["out"], request.get("precision", "fp32"),
                                       request.get("check_constant", "auto"))
            except Exception as e:  # a bug of ours, not the problem's: say so and go on
                facts = {"status": "error", "file": problem["file"], "reason": f"importer error: {type(e).__name__}: {e}"}
            results.write(json.dumps(facts) + "\n")
            results.flush()
            _release_gpu_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
