"""kernelpro's thin bridge to PyTorch: KernelBench-format problems in (importer), and the live
PyTorch reference and baselines that run inside kernelpro's worker (bridge). Everything else in
kernelpro is C++; see docs/kernelbench.md."""
